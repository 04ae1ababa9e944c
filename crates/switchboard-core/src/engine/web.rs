//! The web desk: whether the engine serves paired browsers (it owns the
//! [`WebServer`]), the pairing codes given, the wrong codes counted, and the
//! devices paired with whether each is connected.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::watch;

use crate::error::EngineError;
use crate::store::{DeviceRecord, Store};
use crate::web::pairing::{self, CODE_LENGTH, CODE_LIFETIME, FAILURE_WINDOW, VOID_AFTER};
use crate::web::{Admitted, Doorkeeper, PairRefusal, Paired, WebOptions, WebServer};
use switchboard_api::{Device, Millis, PairingCode, WebSettings, WebStatus};

/// How often a device's last sight is written to the store while it is
/// seen: its pages ask often, the list needs it to the minute.
const SEEN_WRITE_EVERY: Millis = 60_000;

/// A code given and not yet used.
struct Code {
    code: String,
    until: Instant,
    read_only: bool,
    name: Option<String>,
}

/// A paired device, as the desk keeps it.
struct Live {
    record: DeviceRecord,
    /// Each open socket of the device holds a receiver; unpairing says so.
    revoked: watch::Sender<bool>,
    /// When its last sight was written to the store.
    written_at: Millis,
}

pub(super) struct WebDesk {
    settings: WebSettings,
    port: Option<u16>,
    server: Option<WebServer>,
    /// The fingerprint of the certificate served, over HTTPS.
    fingerprint: Option<String>,
    problem: Option<String>,
    codes: Vec<Code>,
    wrong: VecDeque<Instant>,
    devices: HashMap<u64, Live>,
}

/// How the desk starts a server: the engine as its doorkeeper, and what it serves.
pub(super) struct Door<H> {
    pub keeper: Arc<H>,
    pub options: WebOptions,
    /// Where the certificate the engine makes is kept.
    pub certificates: std::path::PathBuf,
}

impl WebDesk {
    /// The settings and devices as stored.
    pub fn load(store: &Store) -> Result<WebDesk, EngineError> {
        let (settings, port) = store.web()?;
        let devices = store
            .list_devices()?
            .into_iter()
            .map(|record| {
                let written_at = record.last_seen_at;
                (record.id, Live { record, revoked: watch::channel(false).0, written_at })
            })
            .collect();
        Ok(WebDesk {
            settings,
            port,
            server: None,
            fingerprint: None,
            problem: None,
            codes: Vec::new(),
            wrong: VecDeque::new(),
            devices,
        })
    }

    /// Serves as the settings say (at the engine's start, or after a change):
    /// the server running now, if any, stops first.
    pub fn apply<H: Doorkeeper>(&mut self, store: &Store, door: &Door<H>) {
        self.problem = None;
        if !self.settings.serving {
            self.stop();
            return;
        }
        let prepared = listen_address(&self.settings, self.port)
            .and_then(|address| Ok((address, certificate(&self.settings, address, &door.certificates)?)));
        let (address, tls) = match prepared {
            Ok(prepared) => prepared,
            Err(problem) => {
                tracing::warn!(%problem, "could not serve browsers");
                self.stop();
                self.problem = Some(problem);
                return;
            }
        };
        let names = self.settings.names.clone();
        let fingerprint = tls.as_ref().map(|tls| tls.fingerprint.clone());
        // Served there already: the same listener goes on with the names and certificate now.
        if let Some(server) = self.server.as_ref().filter(|server| server.addr == address) {
            server.update(names, tls);
            self.fingerprint = fingerprint;
            return;
        }
        let freed = self.server.as_ref().map(|server| server.addr);
        self.stop();
        let bound =
            bind(address, freed == Some(address)).map_err(|error| bind_problem(address, &error)).and_then(|listener| {
                crate::web::serve(listener, door.options.clone(), door.keeper.clone(), names, tls)
                    .map_err(|e| e.to_string())
            });
        match bound {
            Ok(server) => {
                let port = server.addr.port();
                tracing::info!(addr = %server.addr, "serving paired browsers");
                if self.settings.listen.is_none() && self.port != Some(port) {
                    self.port = Some(port);
                    if let Err(error) = store.save_web(&self.settings, self.port) {
                        tracing::warn!(%error, "could not keep the web server's port");
                    }
                }
                self.server = Some(server);
                self.fingerprint = fingerprint;
            }
            Err(problem) => {
                tracing::warn!(%problem, "could not serve browsers");
                self.problem = Some(problem);
            }
        }
    }

    /// Stops serving: every browser is let go, every code given void.
    fn stop(&mut self) {
        self.server = None;
        self.fingerprint = None;
        self.codes.clear();
    }

    pub fn status(&self) -> WebStatus {
        WebStatus {
            settings: self.settings.clone(),
            url: self.base_url(),
            fingerprint: self.fingerprint.clone(),
            problem: self.problem.clone(),
        }
    }

    /// Keeps new settings and serves by them; every browser connected now
    /// is let go (and comes back, if still served).
    pub fn set<H: Doorkeeper>(
        &mut self,
        store: &Store,
        door: &Door<H>,
        settings: WebSettings,
    ) -> Result<WebStatus, EngineError> {
        let settings = checked(settings)?;
        store.save_web(&settings, self.port)?;
        self.settings = settings;
        self.apply(store, door);
        Ok(self.status())
    }

    /// The address a browser opens: by the first name the user added, if
    /// any (a certificate from `tailscale cert` is for that name), over
    /// HTTPS when the certificate is served.
    fn base_url(&self) -> Option<String> {
        let addr = self.server.as_ref()?.addr;
        let host = match (self.settings.names.first(), addr.ip()) {
            (Some(name), _) if self.fingerprint.is_some() => name.clone(),
            (_, IpAddr::V6(ip)) => format!("[{ip}]"),
            (_, IpAddr::V4(ip)) => ip.to_string(),
        };
        let scheme = if self.fingerprint.is_some() { "https" } else { "http" };
        Some(format!("{scheme}://{host}:{}", addr.port()))
    }

    /// A new one-time code, while serving.
    pub fn pair(&mut self, read_only: bool, name: Option<String>, now: Millis) -> Result<PairingCode, EngineError> {
        let base = self.base_url().ok_or_else(not_serving)?;
        let name = name
            .map(|name| switchboard_protocol::text::plain_name(name.trim()).into_owned())
            .filter(|name| !name.is_empty());
        let code = pairing::code_of(pairing::random::<CODE_LENGTH>());
        let url = format!("{base}/pair?code={code}");
        let qr = qr_rows(&url)?;
        self.codes.retain(|given| given.until > Instant::now());
        self.codes.push(Code {
            code: code.clone(),
            until: Instant::now() + CODE_LIFETIME,
            read_only,
            name: name.clone(),
        });
        Ok(PairingCode {
            code: pairing::spaced(&code),
            url,
            expires_at: now + CODE_LIFETIME.as_millis() as Millis,
            read_only,
            name,
            fingerprint: self.fingerprint.clone(),
            qr,
        })
    }

    /// Wrong codes within the window, from every caller.
    pub fn wrong_codes(&mut self) -> usize {
        let now = Instant::now();
        while self.wrong.front().is_some_and(|at| now.duration_since(*at) > FAILURE_WINDOW) {
            self.wrong.pop_front();
        }
        self.wrong.len()
    }

    /// Pairs a browser by its code: the code is used up, the device kept.
    pub fn redeem(
        &mut self,
        store: &Store,
        code: &str,
        user_agent: &str,
        from: &str,
        now: Millis,
    ) -> Result<Result<Paired, PairRefusal>, EngineError> {
        if self.wrong_codes() >= VOID_AFTER {
            self.codes.clear();
            return Ok(Err(PairRefusal::TooMany));
        }
        let found = self.codes.iter().position(|given| pairing::same_hash(&given.code, code));
        let Some(index) = found else {
            self.wrong.push_back(Instant::now());
            if self.wrong_codes() >= VOID_AFTER {
                tracing::warn!("too many wrong pairing codes: every code given is void");
                self.codes.clear();
            }
            return Ok(Err(PairRefusal::Unknown));
        };
        let given = self.codes.remove(index);
        if given.until <= Instant::now() {
            return Ok(Err(PairRefusal::Expired));
        }
        let secret = pairing::new_secret();
        let record = DeviceRecord {
            id: u64::from_be_bytes(pairing::random::<8>()),
            name: given.name.unwrap_or_else(|| pairing::device_name(user_agent)),
            secret_hash: pairing::hash_secret(&secret),
            read_only: given.read_only,
            paired_at: now,
            last_seen_at: now,
            last_from: from.to_owned(),
        };
        store.save_device(&record)?;
        let device = record.id;
        self.devices.insert(device, Live { record, revoked: watch::channel(false).0, written_at: now });
        Ok(Ok(Paired { device, secret }))
    }

    /// The device a credential names, seen now; none if the secret is wrong
    /// or the device unpaired.
    pub fn admit(&mut self, store: &Store, device: u64, secret: &str, from: &str, now: Millis) -> Option<Admitted> {
        let live = self.devices.get_mut(&device)?;
        if !pairing::same_hash(&live.record.secret_hash, &pairing::hash_secret(secret)) {
            return None;
        }
        let moved = live.record.last_from != from;
        live.record.last_seen_at = now;
        live.record.last_from = from.to_owned();
        if moved || now - live.written_at >= SEEN_WRITE_EVERY {
            live.written_at = now;
            if let Err(error) = store.device_seen(device, now, from) {
                tracing::debug!(%error, "could not write when a device was seen");
            }
        }
        Some(Admitted { device, read_only: live.record.read_only, revoked: live.revoked.subscribe() })
    }

    pub fn list(&self) -> Vec<Device> {
        let mut devices: Vec<Device> = self
            .devices
            .values()
            .map(|live| Device {
                id: pairing::device_label(live.record.id),
                name: live.record.name.clone(),
                read_only: live.record.read_only,
                paired_at: live.record.paired_at,
                last_seen_at: live.record.last_seen_at,
                last_from: live.record.last_from.clone(),
                connected: live.revoked.receiver_count() > 0,
            })
            .collect();
        devices.sort_by(|a, b| b.last_seen_at.cmp(&a.last_seen_at).then_with(|| a.id.cmp(&b.id)));
        devices
    }

    /// Unpairs a device, by its id or its name: its sockets close at once.
    pub fn revoke(&mut self, store: &Store, which: &str) -> Result<(), EngineError> {
        let by_id = pairing::parse_device_label(which).filter(|id| self.devices.contains_key(id));
        let by_name: Vec<u64> = self.devices.values().filter(|l| l.record.name == which).map(|l| l.record.id).collect();
        let id = match (by_id, by_name.as_slice()) {
            (Some(id), _) | (None, &[id]) => id,
            (None, []) => return Err(EngineError::DeviceNotFound(which.to_owned())),
            (None, _) => {
                return Err(EngineError::InvalidInput {
                    field: "device_id",
                    reason: format!(
                        "more than one device is named {which}; name it by its id (`switchboard web devices`)"
                    ),
                });
            }
        };
        store.delete_device(id)?;
        if let Some(live) = self.devices.remove(&id) {
            live.revoked.send_replace(true);
        }
        Ok(())
    }
}

fn not_serving() -> EngineError {
    EngineError::InvalidInput {
        field: "web",
        reason: "Switchboard is not serving browsers: turn it on first (`switchboard web`, or Devices in the window)"
            .to_owned(),
    }
}

/// Settings as kept: the address checked, a certificate given whole and by
/// its full path, names tidied.
fn checked(mut settings: WebSettings) -> Result<WebSettings, EngineError> {
    let given = |value: Option<String>| value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    settings.listen = given(settings.listen);
    settings.tls_cert = given(settings.tls_cert);
    settings.tls_key = given(settings.tls_key);
    if let Some(listen) = &settings.listen
        && listen.parse::<SocketAddr>().is_err()
    {
        return Err(EngineError::InvalidInput {
            field: "listen",
            reason: format!("{listen} is not an address and port (such as 100.64.0.2:7780)"),
        });
    }
    match (&settings.tls_cert, &settings.tls_key) {
        (Some(_), None) | (None, Some(_)) => {
            return Err(EngineError::InvalidInput {
                field: "tls_cert",
                reason: "give the certificate and its key together (--tls-cert and --tls-key)".to_owned(),
            });
        }
        (Some(cert), Some(key)) if !(cert.starts_with('/') && key.starts_with('/')) => {
            return Err(EngineError::InvalidInput {
                field: "tls_cert",
                reason: "name the certificate and its key by their full paths".to_owned(),
            });
        }
        _ => {}
    }
    settings.names =
        settings.names.iter().map(|name| name.trim().to_ascii_lowercase()).filter(|n| !n.is_empty()).collect();
    Ok(settings)
}

/// The certificate to serve over, if any: the user's; else one made and
/// kept for an address other than loopback (served over HTTPS only); none
/// on loopback.
fn certificate(
    settings: &WebSettings,
    address: SocketAddr,
    folder: &std::path::Path,
) -> Result<Option<crate::web::tls::Tls>, String> {
    match (&settings.tls_cert, &settings.tls_key) {
        (Some(cert), Some(key)) => crate::web::tls::load(cert.as_ref(), key.as_ref()).map(Some),
        _ if address.ip().is_loopback() => Ok(None),
        _ => {
            let mut names = vec![address.ip().to_string()];
            names.extend(settings.names.iter().cloned());
            crate::web::tls::made(folder, &names).map(Some)
        }
    }
}

/// Where to listen: the address set, or loopback on the port kept (any
/// free one the first time).
fn listen_address(settings: &WebSettings, port: Option<u16>) -> Result<SocketAddr, String> {
    match &settings.listen {
        Some(listen) => listen.parse().map_err(|_| format!("{listen} is not an address and port")),
        None => Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port.unwrap_or(0))),
    }
}

/// How long a port the engine has just stopped serving on may take to be
/// free again (the server's task lets its listener go on a worker of its
/// own, a moment after it is told to stop).
const FREED_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

/// Binds `address`; one the engine served a moment ago is tried again until
/// its old listener has gone.
fn bind(address: SocketAddr, just_freed: bool) -> std::io::Result<std::net::TcpListener> {
    let deadline = Instant::now() + FREED_WITHIN;
    loop {
        match std::net::TcpListener::bind(address) {
            Err(error) if just_freed && error.kind() == std::io::ErrorKind::AddrInUse && Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            bound => return bound,
        }
    }
}

fn bind_problem(address: SocketAddr, error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::AddrInUse => format!("another program already listens on {address}"),
        std::io::ErrorKind::AddrNotAvailable => format!("this machine has no address {}", address.ip()),
        std::io::ErrorKind::PermissionDenied => format!("listening on port {} needs privileges", address.port()),
        _ => format!("could not listen on {address}: {error}"),
    }
}

/// The QR code of `text`: one string a row, `#` dark, with the quiet zone
/// a reader needs around it.
fn qr_rows(text: &str) -> Result<Vec<String>, EngineError> {
    const QUIET: usize = 2;
    let code = qrcode::QrCode::new(text.as_bytes())
        .map_err(|error| EngineError::InvalidInput { field: "url", reason: format!("no QR code fits it: {error}") })?;
    let width = code.width();
    let colors = code.to_colors();
    let blank = " ".repeat(width + 2 * QUIET);
    let mut rows = vec![blank.clone(); QUIET];
    for row in colors.chunks(width) {
        let modules: String = row.iter().map(|color| if *color == qrcode::Color::Dark { '#' } else { ' ' }).collect();
        rows.push(format!("{0}{modules}{0}", " ".repeat(QUIET)));
    }
    rows.extend(std::iter::repeat_n(blank, QUIET));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_kept_only_with_an_address_served_safely() {
        let cases = [
            (None, Ok(None)),
            (Some(" "), Ok(None)),
            (Some("127.0.0.1:7780"), Ok(Some("127.0.0.1:7780"))),
            (Some("[::1]:7780"), Ok(Some("[::1]:7780"))),
            (Some("localhost"), Err("not an address and port")),
            (Some("192.168.1.2:7780"), Ok(Some("192.168.1.2:7780"))),
        ];
        for (listen, expected) in cases {
            let settings = WebSettings { listen: listen.map(str::to_owned), ..WebSettings::default() };
            match (checked(settings), expected) {
                (Ok(kept), Ok(listen)) => assert_eq!(kept.listen.as_deref(), listen),
                (Err(error), Err(words)) => assert!(error.to_string().contains(words), "{error}"),
                (got, expected) => panic!("{listen:?}: {got:?} against {expected:?}"),
            }
        }
    }

    #[test]
    fn a_certificate_is_given_whole_and_by_its_full_path() {
        let cases = [
            (Some("/c.pem"), Some("/k.pem"), None),
            (Some("/c.pem"), None, Some("together")),
            (None, Some("/k.pem"), Some("together")),
            (Some("c.pem"), Some("/k.pem"), Some("full paths")),
        ];
        for (cert, key, refused) in cases {
            let settings = WebSettings {
                tls_cert: cert.map(str::to_owned),
                tls_key: key.map(str::to_owned),
                ..WebSettings::default()
            };
            match (checked(settings), refused) {
                (Ok(_), None) => {}
                (Err(error), Some(words)) => assert!(error.to_string().contains(words), "{error}"),
                (got, refused) => panic!("{cert:?} {key:?}: {got:?} against {refused:?}"),
            }
        }
    }

    #[test]
    fn a_qr_code_is_square_with_its_quiet_zone() {
        let rows = qr_rows("http://127.0.0.1:7780/pair?code=0Z0ZAJNRV4").unwrap();
        assert!(rows.iter().all(|row| row.len() == rows.len()));
        assert!(rows[0].trim().is_empty() && rows[2].contains('#'));
    }
}
