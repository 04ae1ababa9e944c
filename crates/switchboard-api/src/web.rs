//! Serving the window to browsers: whether and where the engine serves it,
//! the codes that pair a browser, and the devices paired.

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

/// How the engine serves the window to browsers, as the user set it. Kept,
/// so an engine started again serves again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WebSettings {
    pub serving: bool,
    /// The address and port it listens on (`ADDR:PORT`); none: 127.0.0.1 on
    /// the port it chose the first time, kept since. Any address but
    /// loopback is served over HTTPS only.
    pub listen: Option<String>,
    /// The certificate and its key (PEM files) the user gave; none: one the
    /// engine made and keeps, for an address other than loopback.
    pub tls_cert: Option<String>,
    pub tls_key: Option<String>,
    /// Names a browser may reach it by besides loopback's and the address
    /// bound (a tailnet name, say), as a `Host` header gives them.
    pub names: Vec<String>,
}

/// Whether the engine serves browsers now, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WebStatus {
    pub settings: WebSettings,
    /// The address a browser opens (none while not serving).
    pub url: Option<String>,
    /// The SHA-256 fingerprint of the certificate served, for HTTPS.
    pub fingerprint: Option<String>,
    /// Why it does not serve although it should (the port is taken, say).
    pub problem: Option<String>,
}

/// A one-time code that pairs a browser, and the address that carries it
/// (what the QR code holds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PairingCode {
    pub code: String,
    /// Opening it is the whole pairing.
    pub url: String,
    pub expires_at: Millis,
    pub read_only: bool,
    /// The name the device gets (none: named after its browser).
    pub name: Option<String>,
    /// The certificate's fingerprint, to compare with what the browser shows.
    pub fingerprint: Option<String>,
    /// The QR code of `url`: one string a row, `#` a dark module.
    pub qr: Vec<String>,
}

/// A paired browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Device {
    pub id: String,
    pub name: String,
    /// It sends only commands that read.
    pub read_only: bool,
    pub paired_at: Millis,
    pub last_seen_at: Millis,
    /// The address it was last seen from.
    pub last_from: String,
    /// Its pages and sockets open now.
    pub connected: bool,
}
