//! Who the web server answers at all, decided before anything else: the
//! names a request may reach it by (no DNS rebinding), the origin a
//! WebSocket may be opened from, what is served without a credential, and
//! the headers every answer carries. Pure.

use std::net::{IpAddr, SocketAddr};

/// Paths served to anyone who reaches the server by an allowed name: the
/// pairing page and what a phone asks before it is paired. None holds data.
pub const PUBLIC_PATHS: &[&str] = &["/pair", "/manifest.webmanifest", "/icon.png", "/favicon.ico"];

/// The path of the WebSocket that carries the client protocol's frames.
pub const SOCKET_PATH: &str = "/ws";

/// Whether a path is served without a credential.
pub fn is_public(path: &str) -> bool {
    PUBLIC_PATHS.contains(&path)
}

/// The name and port of a `Host` header (`[::1]:8080`, `box.tail.ts.net`).
fn split_host(host: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = host.strip_prefix('[') {
        let (name, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        return Some((name, port));
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => Some((name, Some(port))),
        Some(_) => None,
        None => Some((host, None)),
    }
}

/// Whether a request naming `host` (its `Host` header) is answered: by a
/// loopback name at any port (so a port forwarded with `ssh -L` works), by
/// the address the server is bound to, or by a name the user added (a
/// tailnet name). Any other name is refused, so a page of another site that
/// has its name resolve to this machine (DNS rebinding) reaches nothing.
pub fn host_allowed(host: &str, bound: SocketAddr, names: &[String]) -> bool {
    let Some((name, port)) = split_host(host.trim()) else { return false };
    if port.is_some_and(|port| port.is_empty() || port.parse::<u16>().is_err()) {
        return false;
    }
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name.is_empty() {
        return false;
    }
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    if let Ok(ip) = name.parse::<IpAddr>() {
        return ip.is_loopback() || ip == bound.ip();
    }
    names.iter().any(|allowed| allowed.trim_end_matches('.').eq_ignore_ascii_case(&name))
}

/// Whether a WebSocket opened with this `Origin` is let through: only from
/// a page of this very server, as the request's `Host` names it (a page of
/// any other origin, which a browser lets open sockets anywhere, is not).
/// Served over plain HTTP, a page may still have been loaded over HTTPS
/// from a proxy in front of it (`tailscale serve`); served over HTTPS, only
/// an HTTPS page counts.
pub fn origin_allowed(origin: Option<&str>, host: &str, secure: bool) -> bool {
    let Some(origin) = origin else { return false };
    let same = |scheme: &str| origin.eq_ignore_ascii_case(&format!("{scheme}://{host}"));
    same("https") || (!secure && same("http"))
}

/// The Content-Security-Policy of every answer: scripts, styles and the
/// socket of this origin only, nothing framed, no form sent elsewhere.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; manifest-src 'self'; \
     object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The headers every answer carries. No `Access-Control-*`: no other
/// origin may read anything.
pub fn security_headers(secure: bool) -> Vec<(&'static str, &'static str)> {
    let mut headers = vec![
        ("content-security-policy", CONTENT_SECURITY_POLICY),
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("cross-origin-opener-policy", "same-origin"),
        ("cross-origin-resource-policy", "same-origin"),
        ("permissions-policy", "camera=(), microphone=(), geolocation=()"),
    ];
    if secure {
        headers.push(("strict-transport-security", "max-age=31536000"));
    }
    headers
}

/// The media type of a file the server sends, by its extension.
pub fn content_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
    match extension.to_ascii_lowercase().as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "webmanifest" => "application/manifest+json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "ttf" => "font/ttf",
        "wasm" => "application/wasm",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The asset a path names, if it names one within the UI's files: no
/// `..`, no hidden files, no backslashes.
pub fn asset_path(path: &str) -> Option<&str> {
    let relative = path.strip_prefix('/')?;
    let relative = if relative.is_empty() { "index.html" } else { relative };
    let safe = relative
        .split('/')
        .all(|part| !part.is_empty() && !part.starts_with('.') && !part.contains('\\') && !part.contains('\0'));
    safe.then_some(relative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_answered_only_by_loopback_names_the_address_bound_and_names_the_user_added() {
        let loopback: SocketAddr = "127.0.0.1:7788".parse().unwrap();
        let lan: SocketAddr = "192.168.1.20:7788".parse().unwrap();
        let names = vec!["box.tail1234.ts.net".to_owned()];
        let cases = [
            ("127.0.0.1:7788", loopback, true),
            ("127.0.0.1:9000", loopback, true),
            ("localhost:9000", loopback, true),
            ("LOCALHOST", loopback, true),
            ("app.localhost:1", loopback, true),
            ("[::1]:7788", loopback, true),
            ("127.0.0.2", loopback, true),
            ("192.168.1.20:7788", lan, true),
            ("192.168.1.20:7788", loopback, false),
            ("box.tail1234.ts.net", loopback, true),
            ("BOX.tail1234.ts.net.:443", loopback, true),
            ("evil.example", loopback, false),
            ("localhost.evil.example", loopback, false),
            ("127.0.0.1.nip.io", loopback, false),
            ("10.0.0.1", lan, false),
            ("", loopback, false),
            (":7788", loopback, false),
            ("localhost:", loopback, false),
            ("localhost:port", loopback, false),
            ("[::1", loopback, false),
            ("::1", loopback, false),
            ("tail1234.ts.net", loopback, false),
        ];
        for (host, bound, allowed) in cases {
            assert_eq!(host_allowed(host, bound, &names), allowed, "{host} bound to {bound}");
        }
    }

    #[test]
    fn a_socket_opens_only_from_a_page_of_this_server() {
        let cases = [
            (Some("http://127.0.0.1:7788"), "127.0.0.1:7788", false, true),
            (Some("https://box.ts.net"), "box.ts.net", true, true),
            (Some("http://box.ts.net"), "box.ts.net", true, false),
            (Some("https://box.ts.net"), "box.ts.net", false, true),
            (Some("https://evil.example"), "box.ts.net", false, false),
            (Some("http://127.0.0.1:7789"), "127.0.0.1:7788", false, false),
            (Some("http://evil.example"), "127.0.0.1:7788", false, false),
            (Some("null"), "127.0.0.1:7788", false, false),
            (None, "127.0.0.1:7788", false, false),
        ];
        for (origin, host, secure, allowed) in cases {
            assert_eq!(origin_allowed(origin, host, secure), allowed, "{origin:?} to {host}");
        }
    }

    #[test]
    fn only_the_pairing_page_and_what_a_phone_asks_first_are_public() {
        for path in ["/pair", "/manifest.webmanifest", "/icon.png"] {
            assert!(is_public(path), "{path}");
        }
        for path in ["/", "/index.html", "/assets/index.js", SOCKET_PATH, "/pair/../index.html", "/PAIR"] {
            assert!(!is_public(path), "{path}");
        }
    }

    #[test]
    fn an_asset_path_stays_within_the_ui_files() {
        let cases = [
            ("/", Some("index.html")),
            ("/assets/index-3f2a.js", Some("assets/index-3f2a.js")),
            ("/../secret", None),
            ("/assets/../../etc/passwd", None),
            ("/.env", None),
            ("/assets//x.js", None),
            ("/a\\b", None),
            ("relative", None),
        ];
        for (path, expected) in cases {
            assert_eq!(asset_path(path), expected, "{path}");
        }
    }

    #[test]
    fn every_answer_forbids_framing_sniffing_and_other_origins() {
        let headers = security_headers(false);
        let csp = headers.iter().find(|(name, _)| *name == "content-security-policy").unwrap().1;
        for directive in ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"] {
            assert!(csp.contains(directive), "{directive}");
        }
        assert!(!csp.contains("unsafe-eval") && !csp.contains('*'));
        assert!(headers.iter().all(|(name, _)| !name.starts_with("access-control")));
        assert!(security_headers(true).iter().any(|(name, _)| *name == "strict-transport-security"));
        assert_eq!(content_type("assets/app.JS"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("noextension"), "application/octet-stream");
    }
}
