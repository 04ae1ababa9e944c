//! The engine's web server for paired browsers, over real TCP connections:
//! serving is turned on and off from the command line and kept across a
//! restart; a code pairs once; the UI, its files and the WebSocket need the
//! credential; the WebSocket carries the client protocol's frames for the
//! device, whose rights the engine decides; and every refusal the threat
//! model names holds (a foreign `Host` or `Origin`, a forged cookie, a
//! guessed code, an unpaired device's open socket).

use crate::support;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use support::*;
use switchboard_core::api::wire::{Answer, ClientFrame, ClientKind, ClientRequest, Frame, Hello, ServerFrame};
use switchboard_core::api::{Command, ErrorCode, PairingCode, Reply, WebStatus};
use switchboard_core::web::pairing;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// A connection to the server, plain or within TLS.
trait Duplex: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send> Duplex for T {}
type Stream = Box<dyn Duplex>;
type Socket = tokio_tungstenite::WebSocketStream<Stream>;

/// How a test reaches the server: plain HTTP, or HTTPS trusting only the
/// certificate with this fingerprint (as a user compares it at pairing).
#[derive(Clone)]
enum Via {
    Plain,
    Tls(tokio_rustls::TlsConnector),
}

impl Via {
    async fn connect(&self, addr: SocketAddr) -> std::io::Result<Stream> {
        let tcp = tokio::net::TcpStream::connect(addr).await?;
        match self {
            Via::Plain => Ok(Box::new(tcp)),
            Via::Tls(connector) => {
                let name = rustls_pki_types::ServerName::IpAddress(addr.ip().into());
                Ok(Box::new(connector.connect(name, tcp).await?))
            }
        }
    }

    fn scheme(&self) -> &'static str {
        match self {
            Via::Plain => "http",
            Via::Tls(_) => "https",
        }
    }
}

/// An engine serving a small stand-in for the UI's build, its wrong codes
/// slowed by milliseconds (the waits themselves are `pairing`'s table test).
async fn engine() -> (TestEngine, SocketAddr, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    let ui = folder.path().to_path_buf();
    std::fs::create_dir_all(ui.join("assets")).unwrap();
    std::fs::write(ui.join("index.html"), "<!doctype html><html><head><title>UI</title></head><body></body></html>")
        .unwrap();
    std::fs::write(ui.join("assets/app.js"), "console.log('ui')").unwrap();
    let t = TestEngine::start_with(|config| {
        config.web_assets = Some(switchboard_core::web::assets_in(ui));
        config.pairing_slowing =
            pairing::Slowing { first: Duration::from_millis(1), longest: Duration::from_millis(4) };
    })
    .await;
    let addr = serve(&t).await;
    (t, addr, folder)
}

/// `switchboard web`: where it serves.
async fn serve(t: &TestEngine) -> SocketAddr {
    let (code, out, err) = cli_async(t, &["web", "--json"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let status: WebStatus = serde_json::from_str(&out).unwrap();
    let url = status.url.expect("it serves");
    url.strip_prefix("http://").unwrap().parse().unwrap()
}

async fn pair_code(t: &TestEngine, args: &[&str]) -> PairingCode {
    let line: Vec<&str> = ["web", "pair", "--json"].iter().chain(args).copied().collect();
    let (code, out, err) = cli_async(t, &line).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// An HTTP answer as read off the connection.
#[derive(Debug)]
struct Answered {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answered {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A GET of `path` by `host` (the address itself when none), with more headers.
async fn get(addr: SocketAddr, path: &str, host: Option<&str>, headers: &[(&str, &str)]) -> Answered {
    get_via(&Via::Plain, addr, path, host, headers).await
}

async fn get_via(via: &Via, addr: SocketAddr, path: &str, host: Option<&str>, headers: &[(&str, &str)]) -> Answered {
    let mut stream = via.connect(addr).await.unwrap();
    let host = host.map_or_else(|| addr.to_string(), str::to_owned);
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await.unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines.filter_map(|line| line.split_once(": ")).map(|(n, v)| (n.to_owned(), v.to_owned())).collect();
    Answered { status, headers, body: body.to_owned() }
}

/// Pairs by opening the code's address, as a phone that scanned it: the
/// cookie it is given.
async fn pair(addr: SocketAddr, code: &PairingCode) -> String {
    pair_via(&Via::Plain, addr, code).await
}

async fn pair_via(via: &Via, addr: SocketAddr, code: &PairingCode) -> String {
    let path = code.url.split_once(&addr.to_string()).unwrap().1;
    let agent = ("User-Agent", "Mozilla/5.0 (Linux; Android 14) Chrome/129.0 Mobile");
    let paired = get_via(via, addr, path, None, &[agent]).await;
    assert_eq!(paired.status, 303, "{paired:?}");
    assert_eq!(paired.header("location"), Some("/"));
    let cookie = paired.header("set-cookie").expect("a credential").to_owned();
    for part in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    cookie.split(';').next().unwrap().to_owned()
}

async fn open_socket(
    addr: SocketAddr,
    cookie: Option<&str>,
    origin: Option<&str>,
) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
    open_socket_via(&Via::Plain, addr, cookie, origin).await
}

async fn open_socket_via(
    via: &Via,
    addr: SocketAddr,
    cookie: Option<&str>,
    origin: Option<&str>,
) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    if let Some(cookie) = cookie {
        request.headers_mut().insert("cookie", cookie.parse().unwrap());
    }
    if let Some(origin) = origin {
        request.headers_mut().insert("origin", origin.parse().unwrap());
    }
    let stream = via.connect(addr).await.unwrap();
    tokio_tungstenite::client_async(request, stream).await.map(|(socket, _)| socket)
}

/// The body of the next frame the engine sends that is a message.
async fn next_message(socket: &mut Socket) -> serde_json::Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(30), socket.next())
            .await
            .expect("the engine answers")
            .expect("the socket is open")
            .unwrap();
        if let Message::Binary(bytes) = message {
            assert!(bytes.len() >= 5, "a whole frame");
            // A terminal's output, on a stream attached: not a message.
            if bytes[4] == 1 {
                continue;
            }
            assert_eq!(bytes[4], 0, "a message frame");
            let length = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
            assert_eq!(length, bytes.len() - 4, "one whole frame a message");
            return serde_json::from_slice(&bytes[5..]).unwrap();
        }
    }
}

/// Says hello as the window's UI in a browser does (claiming to be a window
/// changes nothing: the server takes it for a browser).
async fn hello(socket: &mut Socket, kind: ClientKind) {
    let hello = Hello {
        protocol: switchboard_core::api::wire::PROTOCOL,
        app_version: "0.1.0".into(),
        build_id: String::new(),
        client_kind: kind,
        client_id: "phone".into(),
    };
    socket.send(Message::Binary(Frame::message(&hello).encode().into())).await.unwrap();
    let welcome = next_message(socket).await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
}

/// Sends `command` and awaits its answer.
async fn command(socket: &mut Socket, id: u64, command: Command) -> Answer {
    let request = ClientFrame::Request { id, request: ClientRequest::Command { command, host: None } };
    socket.send(Message::Binary(Frame::message(&request).encode().into())).await.unwrap();
    loop {
        let frame: ServerFrame = serde_json::from_value(next_message(socket).await).unwrap();
        if let ServerFrame::Reply { id: answered, answer } = frame
            && answered == id
        {
            return answer;
        }
    }
}

fn refused_as(answer: Answer, code: ErrorCode, words: &str) {
    let Answer::Error { error } = answer else { panic!("expected a refusal, got {answer:?}") };
    assert_eq!(error.code, code, "{error:?}");
    assert!(error.message.contains(words), "{}", error.message);
}

/// A socket opened without a valid credential carries nothing: the engine
/// closes it at once, saying the browser is not paired.
async fn turned_away(addr: SocketAddr, cookie: Option<&str>, origin: &str) {
    let mut socket = open_socket(addr, cookie, Some(origin)).await.expect("the page is told why, not left to retry");
    closed_with(&mut socket, switchboard_core::web::UNPAIRED).await;
}

/// Waits for the socket to be closed by the engine, with this code.
async fn closed_with(socket: &mut Socket, code: u16) {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(30), socket.next()).await.expect("the socket closes");
        match message {
            Some(Ok(Message::Close(Some(frame)))) => {
                assert_eq!(frame.code, CloseCode::from(code), "{frame:?}");
                return;
            }
            Some(Ok(Message::Close(None))) | None | Some(Err(_)) => panic!("closed without code {code}"),
            Some(Ok(_)) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_pairs_a_browser_once_and_its_credential_opens_the_ui() {
    let (t, addr, _ui) = engine().await;
    // Not paired: the UI sends it to the pairing page; its files are refused.
    let page = get(addr, "/", None, &[]).await;
    assert_eq!((page.status, page.header("location")), (303, Some("/pair")));
    assert_eq!(get(addr, "/assets/app.js", None, &[]).await.status, 401);
    let pairing_page = get(addr, "/pair", None, &[]).await;
    assert_eq!(pairing_page.status, 200);
    assert!(pairing_page.body.contains("Pair this browser"), "{}", pairing_page.body);

    let code = pair_code(&t, &[]).await;
    assert!(code.url.starts_with(&format!("http://{addr}/pair?code=")), "{}", code.url);
    assert!(code.qr.len() > 20);
    let cookie = pair(addr, &code).await;
    let ui = get(addr, "/", None, &[("Cookie", &cookie)]).await;
    assert_eq!(ui.status, 200, "{ui:?}");
    assert!(ui.body.contains(r#"<meta name="switchboard-web" content="engine">"#), "{}", ui.body);
    let csp = ui.header("content-security-policy").expect("a policy");
    assert!(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(ui.headers.iter().all(|(name, _)| !name.to_ascii_lowercase().starts_with("access-control")));
    assert_eq!(get(addr, "/assets/app.js", None, &[("Cookie", &cookie)]).await.status, 200);

    // The code is used up.
    let again = code.url.split_once(&addr.to_string()).unwrap().1.to_owned();
    let reused = get(addr, &again, None, &[]).await;
    assert_eq!(reused.status, 403);
    assert!(reused.body.contains("used already"), "{}", reused.body);

    // The device is listed, named after its browser.
    let (_, out, _) = cli_async(&t, &["web", "devices"]).await;
    assert!(out.contains("Chrome on Android") && out.contains("full access"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_carries_the_client_protocol_and_the_engine_decides_what_each_device_may_do() {
    let (t, addr, _ui) = engine().await;
    let origin = format!("http://{addr}");
    let full = pair(addr, &pair_code(&t, &[]).await).await;
    let looker = pair(addr, &pair_code(&t, &["--read-only", "--name", "Hall tablet"]).await).await;
    let settle = Command::RespondToSignal {
        signal_id: switchboard_core::api::protocol::SignalId::new(),
        response: switchboard_core::api::SignalResponse::Dismiss,
    };

    // A full device reads and makes the user's decisions (this one names no signal).
    let mut socket = open_socket(addr, Some(&full), Some(&origin)).await.unwrap();
    hello(&mut socket, ClientKind::Window).await;
    let Answer::Ok { reply: Reply::Profiles(_) } = command(&mut socket, 1, Command::ListProfiles {}).await else {
        panic!("a paired browser lists the agents")
    };
    refused_as(command(&mut socket, 2, settle.clone()).await, ErrorCode::SignalNotFound, "");
    // It said it is a window, and follows the events: it still is a browser, and a phone
    // open does not take the desktop's notices away from the daemon.
    let subscribe = ClientFrame::Request { id: 9, request: ClientRequest::Subscribe };
    socket.send(Message::Binary(Frame::message(&subscribe).encode().into())).await.unwrap();
    loop {
        if let ServerFrame::Reply { id: 9, answer } = serde_json::from_value(next_message(&mut socket).await).unwrap() {
            assert!(matches!(answer, Answer::Subscribed { .. }), "{answer:?}");
            break;
        }
    }
    assert_eq!(t.windows_following(), 0, "a browser is not counted as a window");
    // Pairing another is done at the computer only, whatever the hello said.
    let pair_another = Command::PairDevice { read_only: false, name: None };
    refused_as(command(&mut socket, 3, pair_another).await, ErrorCode::NotAllowed, "only at the computer");
    // An engine given no other machine reaches none: it says so, sending nothing anywhere.
    let mut kept = Vec::new();
    let Answer::Machines { links } = ask(&mut socket, 4, ClientRequest::Machines, &mut kept).await else {
        panic!("the machines are answered")
    };
    assert!(links.is_empty(), "{links:?}");
    let elsewhere = ClientRequest::Command { command: Command::ListProfiles {}, host: Some("me@box".into()) };
    refused_as(ask(&mut socket, 5, elsewhere, &mut kept).await, ErrorCode::InvalidInput, "reaches no other machine");

    // A read-only device reads, and changes nothing.
    let mut looking = open_socket(addr, Some(&looker), Some(&origin)).await.unwrap();
    hello(&mut looking, ClientKind::Browser).await;
    let Answer::Ok { reply: Reply::Tasks(_) } = command(&mut looking, 1, Command::ListTasks { profile_id: None }).await
    else {
        panic!("a read-only browser lists the tasks")
    };
    refused_as(command(&mut looking, 2, settle).await, ErrorCode::NotAllowed, "paired to look only");
    // The page learns what it is from the engine, to offer only what it may do.
    let Answer::Ok { reply: Reply::Device(Some(me)) } = command(&mut looking, 3, Command::ThisDevice {}).await else {
        panic!("a paired browser is told which device it is")
    };
    assert_eq!((me.name.as_str(), me.read_only, me.connected), ("Hall tablet", true, true));
    assert_eq!(t.engine.this_device().await.unwrap(), None, "the engine's own clients are no device");

    // Unpairing it closes its open socket at once; its credential opens nothing more.
    let (code, _, err) = cli_async(&t, &["web", "revoke", "Hall tablet"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    closed_with(&mut looking, switchboard_core::web::UNPAIRED).await;
    assert_eq!(get(addr, "/assets/app.js", None, &[("Cookie", &looker)]).await.status, 401);
    turned_away(addr, Some(&looker), &origin).await;

    // Serving stopped: the other's socket closes, and nothing listens.
    let (code, _, err) = cli_async(&t, &["web", "--off"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    closed_with(&mut socket, 1001).await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_the_threat_model_names_is_refused() {
    let (t, addr, _ui) = engine().await;
    let origin = format!("http://{addr}");
    let cookie = pair(addr, &pair_code(&t, &[]).await).await;

    // Another name for this machine (DNS rebinding) reaches nothing, even paired.
    let rebound = get(addr, "/", Some("attacker.example:80"), &[("Cookie", &cookie)]).await;
    assert_eq!(rebound.status, 421);
    assert_eq!(get(addr, "/pair", Some("attacker.example"), &[]).await.status, 421);
    // Loopback names at any port (a port forwarded with ssh -L) are answered.
    assert_eq!(get(addr, "/", Some("localhost:9999"), &[("Cookie", &cookie)]).await.status, 200);

    // The socket opens only from this server's own pages, and only paired.
    assert!(open_socket(addr, Some(&cookie), Some("http://attacker.example")).await.is_err());
    assert!(open_socket(addr, Some(&cookie), None).await.is_err());
    turned_away(addr, None, &origin).await;

    // A forged credential: a real device with another secret, or none at all.
    let (device, _) = pairing::credential_in(&cookie).unwrap();
    let forged = format!("{}={}", pairing::COOKIE, pairing::credential(device, &pairing::new_secret()));
    assert_eq!(get(addr, "/assets/app.js", None, &[("Cookie", &forged)]).await.status, 401);
    turned_away(addr, Some(&forged), &origin).await;
    let made_up = format!("{}={}", pairing::COOKIE, pairing::credential(7, &pairing::new_secret()));
    assert_eq!(get(addr, "/assets/app.js", None, &[("Cookie", &made_up)]).await.status, 401);

    // Only pages are served.
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let post = format!("POST /pair HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    stream.write_all(post.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 405"), "{answer}");

    // Guessing: wrong codes from every caller count together, and past the
    // limit every code given is void, the right one too.
    let code = pair_code(&t, &[]).await;
    for guess in 0..pairing::VOID_AFTER {
        let wrong = get(addr, &format!("/pair?code={guess:010}"), None, &[]).await;
        assert_eq!(wrong.status, 403, "guess {guess}: {wrong:?}");
    }
    let right = code.url.split_once(&addr.to_string()).unwrap().1.to_owned();
    let refused = get(addr, &right, None, &[]).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.body.contains("Too many wrong codes"), "{}", refused.body);
    assert!(refused.header("set-cookie").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serving_is_kept_and_a_restarted_engine_serves_again_on_the_same_port() {
    let data = tempfile::tempdir().unwrap();
    let t = TestEngine::start_in(data.path(), |_| {}).await;
    let addr = serve(&t).await;
    let cookie = pair(addr, &pair_code(&t, &[]).await).await;
    t.shutdown().await;
    drop(t);
    let t = TestEngine::start_in(data.path(), |_| {}).await;
    let (_, out, _) = cli_async(&t, &["web", "--status", "--json"]).await;
    let status: WebStatus = serde_json::from_str(&out).unwrap();
    assert_eq!(status.url, Some(format!("http://{addr}")), "{out}");
    // The device is still paired; this engine carries no UI, and says so.
    let page = get(addr, "/", None, &[("Cookie", &cookie)]).await;
    assert_eq!(page.status, 503, "{page:?}");
    assert!(page.body.contains("carries no UI"), "{}", page.body);
}

/// Trusts one certificate, by its fingerprint, as a user who compared it.
#[derive(Debug)]
struct Fingerprinted(String);

impl tokio_rustls::rustls::client::danger::ServerCertVerifier for Fingerprinted {
    fn verify_server_cert(
        &self,
        cert: &rustls_pki_types::CertificateDer<'_>,
        _: &[rustls_pki_types::CertificateDer<'_>],
        _: &rustls_pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls_pki_types::UnixTime,
    ) -> Result<tokio_rustls::rustls::client::danger::ServerCertVerified, tokio_rustls::rustls::Error> {
        if switchboard_core::web::tls::fingerprint(cert) == self.0 {
            Ok(tokio_rustls::rustls::client::danger::ServerCertVerified::assertion())
        } else {
            Err(tokio_rustls::rustls::Error::General("not the certificate shown at pairing".into()))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls_pki_types::CertificateDer<'_>,
        signature: &tokio_rustls::rustls::DigitallySignedStruct,
    ) -> Result<tokio_rustls::rustls::client::danger::HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        let algorithms = tokio_rustls::rustls::crypto::ring::default_provider().signature_verification_algorithms;
        tokio_rustls::rustls::crypto::verify_tls12_signature(message, cert, signature, &algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls_pki_types::CertificateDer<'_>,
        signature: &tokio_rustls::rustls::DigitallySignedStruct,
    ) -> Result<tokio_rustls::rustls::client::danger::HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        let algorithms = tokio_rustls::rustls::crypto::ring::default_provider().signature_verification_algorithms;
        tokio_rustls::rustls::crypto::verify_tls13_signature(message, cert, signature, &algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<tokio_rustls::rustls::SignatureScheme> {
        tokio_rustls::rustls::crypto::ring::default_provider().signature_verification_algorithms.supported_schemes()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_given_serves_https_only_and_its_fingerprint_is_shown_at_pairing() {
    let folder = tempfile::tempdir().unwrap();
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
    let (cert, key) = (folder.path().join("cert.pem"), folder.path().join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    let fingerprint = switchboard_core::web::tls::fingerprint(made.cert.der());
    let t = TestEngine::start().await;
    let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let (code, out, err) = cli_async(&t, &["web", "--tls-cert", cert, "--tls-key", key, "--json"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let status: WebStatus = serde_json::from_str(&out).unwrap();
    assert_eq!(status.fingerprint.as_deref(), Some(fingerprint.as_str()));
    let addr: SocketAddr = status.url.unwrap().strip_prefix("https://").unwrap().parse().unwrap();
    let code = pair_code(&t, &[]).await;
    assert!(code.url.starts_with("https://"), "{}", code.url);
    assert_eq!(code.fingerprint.as_deref(), Some(fingerprint.as_str()), "the fingerprint is shown at pairing");

    // HTTPS only: a plain request gets no page.
    let mut plain = tokio::net::TcpStream::connect(addr).await.unwrap();
    plain.write_all(format!("GET /pair HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).await.unwrap();
    let mut said = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), plain.read_to_end(&mut said)).await.unwrap().ok();
    assert!(!String::from_utf8_lossy(&said).contains("Pair this browser"));

    let config = tokio_rustls::rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .dangerous()
    .with_custom_certificate_verifier(std::sync::Arc::new(Fingerprinted(fingerprint)))
    .with_no_client_auth();
    let via = Via::Tls(tokio_rustls::TlsConnector::from(std::sync::Arc::new(config)));
    let cookie = pair_via(&via, addr, &code).await;
    let ui = get_via(&via, addr, "/", None, &[("Cookie", &cookie)]).await;
    assert_eq!(ui.status, 503, "this engine carries no UI: {ui:?}");
    assert!(ui.header("strict-transport-security").is_some(), "{ui:?}");

    // The socket opens from this server's HTTPS pages only.
    let origin = format!("{}://{addr}", via.scheme());
    let mut socket = open_socket_via(&via, addr, Some(&cookie), Some(&origin)).await.unwrap();
    hello(&mut socket, ClientKind::Browser).await;
    let Answer::Ok { reply: Reply::Profiles(_) } = command(&mut socket, 1, Command::ListProfiles {}).await else {
        panic!("a paired browser lists the agents over HTTPS")
    };
    assert!(open_socket_via(&via, addr, Some(&cookie), Some(&format!("http://{addr}"))).await.is_err());

    // The certificate given is forgotten on asking: the engine's own serves in its place.
    let (code, out, err) = cli_async(&t, &["web", "--engine-cert", "--json"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let status: WebStatus = serde_json::from_str(&out).unwrap();
    assert_eq!((status.settings.tls_cert, status.settings.tls_key), (None, None));
    // Served on loopback, that is plain HTTP again, with no certificate at all.
    assert_eq!(status.fingerprint, None, "{:?}", status.url);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serving_again_keeps_the_address_and_the_open_sockets_and_stopping_frees_the_port_at_once() {
    let (t, addr, _ui) = engine().await;
    let origin = format!("http://{addr}");
    let cookie = pair(addr, &pair_code(&t, &[]).await).await;
    let mut socket = open_socket(addr, Some(&cookie), Some(&origin)).await.unwrap();
    hello(&mut socket, ClientKind::Browser).await;
    // `web` again, and with a name let in: the same address, the socket goes on, the name is answered.
    assert_eq!(serve(&t).await, addr);
    let (code, _, err) = cli_async(&t, &["web", "--allow-name", "box.tail.ts.net"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let Answer::Ok { reply: Reply::Profiles(_) } = command(&mut socket, 1, Command::ListProfiles {}).await else {
        panic!("the open socket goes on")
    };
    let named = get(addr, "/", Some("box.tail.ts.net"), &[("Cookie", &cookie)]).await;
    assert_eq!(named.status, 200, "{named:?}");
    // Off and at once on again: the same port, free again.
    let (code, _, err) = cli_async(&t, &["web", "--off"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    closed_with(&mut socket, 1001).await;
    assert_eq!(serve(&t).await, addr);
    assert_eq!(get(addr, "/", None, &[("Cookie", &cookie)]).await.status, 200);
}

/// Sends a request and awaits its answer, keeping every other frame the
/// engine sent meanwhile.
async fn ask(socket: &mut Socket, id: u64, request: ClientRequest, meanwhile: &mut Vec<ServerFrame>) -> Answer {
    let request = ClientFrame::Request { id, request };
    socket.send(Message::Binary(Frame::message(&request).encode().into())).await.unwrap();
    loop {
        match serde_json::from_value(next_message(socket).await).unwrap() {
            ServerFrame::Reply { id: answered, answer } if answered == id => return answer,
            other => meanwhile.push(other),
        }
    }
}

/// The other machine's engine, behind a real sshd: started over SSH by the
/// command line, stopped with the test.
struct OtherMachine {
    sshd: switchboard_tests::sshd::Sshd,
    cli_data: std::path::PathBuf,
}

impl OtherMachine {
    fn cli(&self, args: &[&str]) -> serde_json::Value {
        let output = std::process::Command::new(app_binary())
            .arg("--data-dir")
            .arg(&self.cli_data)
            .args(args)
            .env("SWITCHBOARD_SSH", self.sshd.ssh_command())
            .env_remove("SWITCHBOARD_DATA_DIR")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{args:?}: {}{out}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}): {out}"))
    }
}

impl Drop for OtherMachine {
    fn drop(&mut self) {
        let _ = std::process::Command::new(app_binary())
            .arg("--data-dir")
            .arg(&self.sshd.remote_data)
            .args(["daemon", "--stop"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
}

/// A browser sees what the desktop window sees: this machine's agents and
/// those of the user's other machines, reached over SSH by the engine that
/// serves it. Its lists join every machine's, a command for what another
/// machine holds goes there, that machine's events and terminal come named
/// by it, and a browser paired read-only changes nothing there either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_reaches_the_users_other_machines_through_the_engine_that_serves_it() {
    use switchboard_client::ssh::Host;
    use switchboard_tests::sshd::{HOST, Sshd};

    let temp = tempfile::tempdir().unwrap();
    let sshd = Sshd::start(temp.path());
    sshd.trust();
    let app = app_binary().display().to_string();
    let other = OtherMachine { cli_data: temp.path().join("cli-data"), sshd };
    let added = other.cli(&["host", "add", HOST, "--remote-program", &app, "--json"]);
    assert_eq!(added["state"], "connected", "{added}");
    let workspace = temp.path().join("remote-workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let builder = other.cli(&[
        "--host",
        HOST,
        "agent",
        "add",
        "--name",
        "builder",
        "--command",
        DEMO_AGENT,
        "--arg",
        "--speed",
        "--arg",
        "fast",
        "--cwd",
        workspace.to_str().unwrap(),
        "--json",
    ]);
    let builder_id = builder["id"].as_str().unwrap_or_else(|| panic!("{builder}")).to_owned();
    // A certificate for the other machine's engine is named by its whole path there: this
    // machine's folder names nothing on it.
    let refused = std::process::Command::new(app_binary())
        .arg("--data-dir")
        .arg(&other.cli_data)
        .args(["--host", HOST, "web", "--tls-cert", "box.crt", "--tls-key", "box.key"])
        .env("SWITCHBOARD_SSH", other.sshd.ssh_command())
        .env_remove("SWITCHBOARD_DATA_DIR")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("box.crt is a path in this machine's folder"), "{said}");

    // This machine's engine, serving browsers, with the other machine in its list.
    let ssh = switchboard_client::ssh::ssh_program_of(Some(&other.sshd.ssh_command()));
    let t = TestEngine::start_with(|config| {
        let host = Host { remote_program: Some(app.clone()), ..Host::new(HOST).unwrap() };
        switchboard_client::hosts::add(&config.data_dir, host).unwrap();
        config.web_machines =
            Some(switchboard_daemon::beyond::Machines::with_ssh(config.data_dir.clone(), ssh).for_web());
    })
    .await;
    let mine = t.demo_profile(&["--speed", "fast"]).await;
    let addr = serve(&t).await;
    let origin = format!("http://{addr}");
    let full = pair(addr, &pair_code(&t, &[]).await).await;
    let mut socket = open_socket(addr, Some(&full), Some(&origin)).await.unwrap();
    hello(&mut socket, ClientKind::Browser).await;

    // The machines' links, then each change: the other machine is reached.
    let mut pushed = Vec::new();
    let Answer::Machines { links } = ask(&mut socket, 1, ClientRequest::Machines, &mut pushed).await else {
        panic!("the machines are listed")
    };
    assert_eq!(links.iter().map(|l| l.destination.as_str()).collect::<Vec<_>>(), [HOST]);
    let reached = |frame: &ServerFrame| matches!(frame, ServerFrame::Machine { link } if matches!(link.link, switchboard_core::EngineLink::Connected { .. }));
    let connected = matches!(links[0].link, switchboard_core::EngineLink::Connected { .. });
    if !connected && !pushed.iter().any(reached) {
        loop {
            let frame: ServerFrame = serde_json::from_value(next_message(&mut socket).await).unwrap();
            if reached(&frame) {
                break;
            }
        }
    }

    // One list of every machine's agents, each named by its machine.
    let Answer::Ok { reply: Reply::Profiles(profiles) } = command(&mut socket, 2, Command::ListProfiles {}).await
    else {
        panic!("the agents are listed")
    };
    let machine_of = |id: &str| profiles.iter().find(|p| p.id.to_string() == id).map(|p| p.host.clone());
    assert_eq!(machine_of(&builder_id), Some(Some(HOST.to_owned())), "{profiles:?}");
    assert_eq!(machine_of(&mine.id.to_string()), Some(None), "{profiles:?}");

    // Events followed from now on; a task for the other machine's agent goes there.
    let mut meanwhile = Vec::new();
    let subscribed = ask(&mut socket, 3, ClientRequest::Subscribe, &mut meanwhile).await;
    assert!(matches!(subscribed, Answer::Subscribed { .. }), "{subscribed:?}");
    let spec: switchboard_core::TaskSpec =
        serde_json::from_value(serde_json::json!({"profile_id": builder_id, "instruction": "Write the notes"}))
            .unwrap();
    let Answer::Ok { reply: Reply::Submitted(submitted) } = command(&mut socket, 4, Command::SubmitTask { spec }).await
    else {
        panic!("the task is taken")
    };
    let task_id = submitted.task.id.clone();
    let local = t.engine.get_task(task_id.clone()).await;
    assert!(local.is_err(), "the task went to the other machine, not this one");
    // Its events come named by their machine; its session's terminal streams through.
    let session_id = loop {
        let frame: ServerFrame = serde_json::from_value(next_message(&mut socket).await).unwrap();
        if let ServerFrame::Event { event, host: Some(host), .. } = frame
            && let Ok(switchboard_core::EngineEvent::TaskChanged { task }) = serde_json::from_value(event)
            && task.id == task_id
            && let Some(session_id) = task.session_id.clone()
        {
            assert_eq!(host, HOST);
            break session_id;
        }
    };
    let attach = ClientRequest::Attach { session_id, stream: 7 };
    let attached = ask(&mut socket, 5, attach, &mut meanwhile).await;
    assert!(matches!(attached, Answer::Ok { .. }), "{attached:?}");
    loop {
        let message = tokio::time::timeout(Duration::from_secs(30), socket.next()).await.unwrap().unwrap().unwrap();
        if let Message::Binary(bytes) = message
            && bytes[4] == 1
        {
            assert_eq!(u32::from_be_bytes(bytes[5..9].try_into().unwrap()), 7, "on the stream the page chose");
            break;
        }
    }

    // Named for the machine: answered by it. An unknown machine: refused in words.
    let asked = ClientRequest::Command { command: Command::ListProfiles {}, host: Some(HOST.into()) };
    let Answer::Ok { reply: Reply::Profiles(there) } = ask(&mut socket, 6, asked, &mut meanwhile).await else {
        panic!("the machine answers")
    };
    assert!(there.iter().all(|p| p.host.as_deref() == Some(HOST)) && !there.is_empty(), "{there:?}");
    let asked = ClientRequest::Command { command: Command::ListProfiles {}, host: Some("elsewhere".into()) };
    refused_as(ask(&mut socket, 7, asked, &mut meanwhile).await, ErrorCode::InvalidInput, "not one of the machines");

    // The other machine's news is told in the page as the desktop window tells it.
    let told = |frame: &ServerFrame| {
        matches!(frame, ServerFrame::Notice { notice: switchboard_core::api::PageNotice::Show { body, .. } }
            if body.contains("Write the notes"))
    };
    if !meanwhile.iter().any(told) {
        loop {
            let frame: ServerFrame = serde_json::from_value(next_message(&mut socket).await).unwrap();
            if told(&frame) {
                break;
            }
        }
    }

    // Read-only: it reads the other machine, and changes nothing there.
    let looker = pair(addr, &pair_code(&t, &["--read-only"]).await).await;
    let mut looking = open_socket(addr, Some(&looker), Some(&origin)).await.unwrap();
    hello(&mut looking, ClientKind::Browser).await;
    let asked = ClientRequest::Command { command: Command::ListTasks { profile_id: None }, host: Some(HOST.into()) };
    let Answer::Ok { reply: Reply::Tasks(tasks) } = ask(&mut looking, 1, asked, &mut Vec::new()).await else {
        panic!("a read-only browser reads the other machine")
    };
    assert!(tasks.iter().any(|task| task.id == task_id), "{tasks:?}");
    let cancel = Command::CancelTask { task_id: task_id.clone() };
    refused_as(command(&mut looking, 2, cancel.clone()).await, ErrorCode::NotAllowed, "paired to look only");
    let asked = ClientRequest::Command { command: cancel, host: Some(HOST.into()) };
    refused_as(ask(&mut looking, 3, asked, &mut Vec::new()).await, ErrorCode::NotAllowed, "paired to look only");
}

/// A paired browser's page is told the news the desktop notifies, as the
/// daemon's notices decide it (the desktop's own rule, once): a task that
/// finished, in the place for finished tasks, opening that task.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_is_told_what_the_desktop_notifies() {
    let machines = std::sync::Arc::new(std::sync::Mutex::new(None));
    let kept = machines.clone();
    let t = TestEngine::start_with(move |config| {
        let made = switchboard_daemon::beyond::Machines::new(config.data_dir.clone());
        config.web_machines = Some(made.clone().for_web());
        *kept.lock().unwrap() = Some(made);
    })
    .await;
    let pages = machines.lock().unwrap().as_ref().unwrap().pages();
    switchboard_daemon::notices::spawn(t.handle(), t.data_dir.clone(), true, Some(pages));
    let demo = t.demo_profile(&["--speed", "fast"]).await;
    let addr = serve(&t).await;
    let full = pair(addr, &pair_code(&t, &[]).await).await;
    let mut socket = open_socket(addr, Some(&full), Some(&format!("http://{addr}"))).await.unwrap();
    hello(&mut socket, ClientKind::Browser).await;

    let spec: switchboard_core::TaskSpec =
        serde_json::from_value(serde_json::json!({"profile_id": demo.id, "instruction": "Write the notes"})).unwrap();
    let Answer::Ok { reply: Reply::Submitted(submitted) } = command(&mut socket, 1, Command::SubmitTask { spec }).await
    else {
        panic!("the task is taken")
    };
    let notice = loop {
        if let ServerFrame::Notice { notice } = serde_json::from_value(next_message(&mut socket).await).unwrap() {
            break notice;
        }
    };
    let switchboard_core::api::PageNotice::Show { place, tone, title, body, opens, stays } = notice else {
        panic!("a notice shown: {notice:?}")
    };
    assert_eq!((place.as_str(), tone, stays), ("finished", switchboard_core::api::NoticeTone::Done, false));
    assert!(title.contains("Task"), "{title}");
    assert!(body.contains("Write the notes"), "{body}");
    assert_eq!(opens, Some(switchboard_core::api::OpenTarget::Task(submitted.task.id)));
}
