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

/// What a page a browser shows tells of the news the desktop notifies, in
/// the page (and, where the browser lets it, as the system's notification):
/// decided by the same rule as the desktop's notifications, once, in the
/// engine's daemon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PageNotice {
    /// Shows a notice in its place, replacing what the place showed.
    Show {
        /// Where it shows: one place per agent, one for tasks that ended,
        /// one for the app's own.
        place: String,
        tone: NoticeTone,
        title: String,
        body: String,
        /// What tapping it opens (none: just the page).
        opens: Option<crate::OpenTarget>,
        /// It stays until what it tells is handled (then a `close` comes);
        /// otherwise it goes by itself.
        stays: bool,
    },
    /// What the place shows is handled (answered, moved on, looked at).
    Close { place: String },
}

/// How a page notice looks: what it asks of the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum NoticeTone {
    /// An agent waits for the user's answer.
    Asks,
    /// An agent may be stuck, or a loop stalled, or a limit holds work.
    Stalled,
    /// Something failed, or the app cannot record its work.
    Failed,
    /// Work finished.
    Done,
}
