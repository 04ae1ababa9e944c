//! Serving paired browsers: the commands of the web desk, and what the
//! engine's web server asks of it (not commands: no client can send them).

use super::EngineState;
use crate::error::EngineError;
use switchboard_api::{Device, EngineEvent, PairingCode, WebSettings, WebStatus, now};

impl EngineState {
    /// Serves browsers as the kept settings say (at start).
    pub(in crate::engine) fn serve_browsers(&mut self) {
        if let Some(door) = &self.door {
            self.web.apply(&self.cx.store, door);
        }
    }

    pub(in crate::engine) fn web_status(&self) -> Result<WebStatus, EngineError> {
        Ok(self.web.status())
    }

    pub(in crate::engine) fn set_web(&mut self, settings: WebSettings) -> Result<WebStatus, EngineError> {
        let door = self.door.as_ref().ok_or(EngineError::EngineStopped)?;
        let status = self.web.set(&self.cx.store, door, settings)?;
        self.cx.emit(EngineEvent::WebChanged { status: status.clone() });
        Ok(status)
    }

    pub(in crate::engine) fn pair_device(
        &mut self,
        read_only: bool,
        name: Option<String>,
    ) -> Result<PairingCode, EngineError> {
        self.web.pair(read_only, name, now())
    }

    pub(in crate::engine) fn list_devices(&self) -> Result<Vec<Device>, EngineError> {
        Ok(self.web.list())
    }

    /// The engine's own callers are no device: a paired browser's socket
    /// answers this itself, knowing whose it is (`WeakEngine::handle`).
    pub(in crate::engine) fn this_device(&self) -> Result<Option<Device>, EngineError> {
        Ok(None)
    }

    /// The device `id`, as listed.
    pub(in crate::engine) fn device(&self, id: u64) -> Option<Device> {
        let label = crate::web::pairing::device_label(id);
        self.web.list().into_iter().find(|device| device.id == label)
    }

    pub(in crate::engine) fn revoke_device(&mut self, device_id: String) -> Result<(), EngineError> {
        self.web.revoke(&self.cx.store, device_id.trim())?;
        self.devices_changed();
        Ok(())
    }

    /// Tells the windows the devices as they are now.
    pub(in crate::engine) fn devices_changed(&mut self) {
        self.cx.emit(EngineEvent::DevicesChanged { devices: self.web.list() });
    }

    pub(in crate::engine) fn redeem_pairing(
        &mut self,
        code: &str,
        user_agent: &str,
        from: &str,
    ) -> Result<Result<crate::web::Paired, crate::web::PairRefusal>, EngineError> {
        let redeemed = self.web.redeem(&self.cx.store, code, user_agent, from, now())?;
        if redeemed.is_ok() {
            self.devices_changed();
        }
        Ok(redeemed)
    }

    pub(in crate::engine) fn admit_device(
        &mut self,
        device: u64,
        secret: &str,
        from: &str,
    ) -> Option<crate::web::Admitted> {
        self.web.admit(&self.cx.store, device, secret, from, now())
    }
}
