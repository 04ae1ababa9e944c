//! What the web server sends: the pairing page and what else is public
//! (none of it holds data), the UI's files once a browser is paired, and
//! short answers in words.

use axum::body::Body;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

use super::{WebAssets, guard};

/// The app's icon, for the manifest and the browser's tab.
const ICON: &[u8] = include_bytes!("../../../../icons/icon.png");
const FAVICON: &[u8] = include_bytes!("../../../../icons/32x32.png");

/// What lets a browser install the page as an app.
const MANIFEST: &str = r##"{
  "name": "Switchboard",
  "short_name": "Switchboard",
  "description": "Your coding agents: what they ask, what they do.",
  "start_url": "/",
  "scope": "/",
  "display": "standalone",
  "background_color": "#16181d",
  "theme_color": "#16181d",
  "icons": [{ "src": "/icon.png", "sizes": "512x512", "type": "image/png", "purpose": "any" }]
}
"##;

/// What `index.html` is given when the engine serves it: the mark that has
/// the page speak to the engine over its socket (not to Tauri, nor the
/// demo), and what lets a phone install it as an app.
const SERVED_MARK: &str = r##"<meta name="switchboard-web" content="engine">
    <link rel="manifest" href="/manifest.webmanifest">
    <link rel="icon" href="/favicon.ico">
    <link rel="apple-touch-icon" href="/icon.png">
    <meta name="theme-color" content="#16181d">"##;

fn response(status: StatusCode, content_type: &str, body: impl Into<Body>) -> Response<Body> {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A short answer in words.
pub fn text(status: StatusCode, words: &str) -> Response<Body> {
    response(status, "text/plain; charset=utf-8", format!("{words}\n"))
}

/// A public file.
pub fn public(path: &str, assets: Option<&WebAssets>) -> Response<Body> {
    match path {
        "/manifest.webmanifest" => response(StatusCode::OK, guard::content_type(path), MANIFEST),
        "/icon.png" => response(StatusCode::OK, "image/png", ICON),
        "/favicon.ico" => response(StatusCode::OK, "image/png", FAVICON),
        _ => asset(path, assets),
    }
}

/// A browser without a valid credential: the UI's page sends it to pair,
/// anything else is refused.
pub fn not_paired(path: &str) -> Response<Body> {
    if path == "/" || path == "/index.html" {
        let mut response = response(StatusCode::SEE_OTHER, "text/plain; charset=utf-8", "");
        response.headers_mut().insert(header::LOCATION, HeaderValue::from_static("/pair"));
        return response;
    }
    text(StatusCode::UNAUTHORIZED, "This browser is not paired with Switchboard; open /pair.")
}

/// One of the UI's files (the page itself marked as served by the engine).
pub fn asset(path: &str, assets: Option<&WebAssets>) -> Response<Body> {
    let Some(assets) = assets else {
        return text(
            StatusCode::SERVICE_UNAVAILABLE,
            "This build of Switchboard carries no UI for browsers (a development build): build it with ./scripts/build.sh.",
        );
    };
    let Some(file) = guard::asset_path(path) else {
        return text(StatusCode::NOT_FOUND, "There is no such page.");
    };
    let Some(bytes) = assets.get(file) else {
        return text(StatusCode::NOT_FOUND, "There is no such page.");
    };
    if file == "index.html" {
        let page = String::from_utf8_lossy(&bytes).replacen("<head>", &format!("<head>\n    {SERVED_MARK}"), 1);
        return response(StatusCode::OK, guard::content_type(file), page);
    }
    let mut response = response(StatusCode::OK, guard::content_type(file), bytes.into_owned());
    // The build names its scripts and styles by their content: they never change.
    if file.starts_with("assets/") {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=31536000, immutable"));
    }
    response
}

/// The pairing page: asks for the code, or says why the one given did not pair.
pub fn pairing(status: StatusCode, refused: Option<&str>) -> Response<Body> {
    let said = refused.map_or(String::new(), |why| format!("<p class=\"refused\" role=\"alert\">{}</p>", escape(why)));
    let page = format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark">
<link rel="manifest" href="/manifest.webmanifest">
<link rel="icon" href="/favicon.ico">
<title>Pair with Switchboard</title>
<style>
body {{ font: 17px/1.5 system-ui, sans-serif; background: #16181d; color: #e6e8ee; margin: 0; padding: 24px; }}
main {{ max-width: 420px; margin: 8vh auto; }}
h1 {{ font-size: 22px; }}
label {{ display: block; margin: 20px 0 8px; }}
input {{ font: inherit; font-size: 22px; letter-spacing: 2px; width: 100%; box-sizing: border-box; padding: 12px; border-radius: 8px; border: 1px solid #4a5060; background: #0f1115; color: inherit; text-transform: uppercase; }}
button {{ font: inherit; margin-top: 16px; width: 100%; min-height: 48px; border-radius: 8px; border: 0; background: #4c7dff; color: white; }}
.refused {{ background: #3a1d22; border: 1px solid #a0444f; padding: 12px; border-radius: 8px; }}
.hint {{ color: #a3a9b8; font-size: 15px; }}
</style>
</head>
<body>
<main>
<h1>Pair this browser with Switchboard</h1>
{said}
<p>Scan the QR code Switchboard shows, or type its code here. Make one in the window's <b>Devices</b> pane, or with <code>switchboard web pair</code> on the computer your agents run on.</p>
<form method="get" action="/pair">
<label for="code">Pairing code</label>
<input id="code" name="code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required>
<button type="submit">Pair</button>
</form>
<p class="hint">A code pairs for 5 minutes, once.</p>
</main>
</body>
</html>
"#
    );
    response(status, "text/html; charset=utf-8", page)
}

/// Paired: the credential set, and on to the UI (the code leaves the address bar).
pub fn paired(set_cookie: &str) -> Response<Body> {
    let mut response = response(StatusCode::SEE_OTHER, "text/plain; charset=utf-8", "Paired.\n");
    let headers = response.headers_mut();
    headers.insert(header::LOCATION, HeaderValue::from_static("/"));
    if let Ok(value) = HeaderValue::from_str(set_cookie) {
        headers.insert(header::SET_COOKIE, value);
    }
    response
}

/// Text for HTML: nothing in it is markup.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
