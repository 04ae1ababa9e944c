//! Serving paired browsers: the commands of the web desk, and what the
//! engine's web server asks of it (not commands: no client can send them).

use super::EngineState;
use crate::error::EngineError;
use switchboard_api::{Device, PairingCode, WebSettings, WebStatus, now};

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
        self.web.set(&self.cx.store, door, settings)
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

    pub(in crate::engine) fn revoke_device(&mut self, device_id: String) -> Result<(), EngineError> {
        self.web.revoke(&self.cx.store, device_id.trim())
    }

    pub(in crate::engine) fn redeem_pairing(
        &mut self,
        code: &str,
        user_agent: &str,
        from: &str,
    ) -> Result<Result<crate::web::Paired, crate::web::PairRefusal>, EngineError> {
        self.web.redeem(&self.cx.store, code, user_agent, from, now())
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
