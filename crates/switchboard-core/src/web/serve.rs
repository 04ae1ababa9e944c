//! The listener and each request's way: the name it came by first, then
//! the public pages, then the credential, then the UI's files or the
//! WebSocket. Every answer carries `guard::security_headers`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::FromRequestParts;
use axum::extract::ws::WebSocketUpgrade;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::pairing::{self, Attempt};
use super::shared::{Served, Web};
use super::{Doorkeeper, WebOptions, WebServer, guard, pages};
use crate::server::StreamServer;

/// Connections open at once: past it a new one is closed unanswered.
const MAX_CONNECTIONS: usize = 256;

/// How long a client has to send a request's head.
const HEAD_DEADLINE: Duration = Duration::from_secs(10);

/// How long a client has to finish the TLS handshake.
const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(10);

/// Serves on `listener` (made non-blocking here), over HTTPS with `tls`,
/// until the returned server is dropped.
pub fn serve<H: Doorkeeper>(
    listener: std::net::TcpListener,
    options: WebOptions,
    door: Arc<H>,
    names: Vec<String>,
    tls: Option<super::tls::Tls>,
) -> std::io::Result<WebServer> {
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let (open_tx, open) = watch::channel(());
    let (served_tx, served) = watch::channel(Served { names, tls: tls.map(|tls| tls.acceptor) });
    let streams = StreamServer::new(options.limits.clone());
    let web =
        Arc::new(Web { door, bound: addr, options, served, pairing_turn: tokio::sync::Mutex::new(()), streams, open });
    let accept = tokio::spawn(accept(listener, web));
    Ok(WebServer { addr, accept, _open: open_tx, served: served_tx })
}

async fn accept<H: Doorkeeper>(listener: tokio::net::TcpListener, web: Arc<Web<H>>) {
    // Owned here: when the server stops, every connection's task goes with it.
    let mut connections = JoinSet::new();
    loop {
        while connections.try_join_next().is_some() {}
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!(%error, "the web server could not accept a connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if connections.len() >= MAX_CONNECTIONS {
            tracing::debug!(%peer, "a web connection was refused: too many open");
            continue;
        }
        let tls = web.served.borrow().tls.clone();
        let web = web.clone();
        connections.spawn(async move {
            match tls {
                None => serve_http(stream, web, peer).await,
                Some(tls) => match tokio::time::timeout(HANDSHAKE_DEADLINE, tls.accept(stream)).await {
                    Ok(Ok(stream)) => serve_http(stream, web, peer).await,
                    // Plain HTTP to an HTTPS port, a certificate the browser refused, a silent client.
                    Ok(Err(error)) => tracing::debug!(%error, %peer, "a TLS handshake failed"),
                    Err(_) => tracing::debug!(%peer, "a TLS handshake did not finish in time"),
                },
            }
        });
    }
}

/// Serves HTTP/1.1 on one connection, plain or within TLS.
async fn serve_http<H: Doorkeeper, S>(stream: S, web: Arc<Web<H>>, peer: SocketAddr)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |request| {
        let web = web.clone();
        async move { Ok::<_, Infallible>(answer(&web, peer, request).await) }
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEAD_DEADLINE);
    if let Err(error) = http.serve_connection(TokioIo::new(stream), service).with_upgrades().await {
        tracing::debug!(%error, %peer, "a web connection ended");
    }
}

/// Answers one request, with the headers every answer carries.
async fn answer<H: Doorkeeper>(web: &Arc<Web<H>>, peer: SocketAddr, request: Request<Incoming>) -> Response<Body> {
    let served = web.served.borrow().clone();
    let mut response = route(web, &served, peer, request).await;
    let headers = response.headers_mut();
    for (name, value) in guard::security_headers(served.tls.is_some()) {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

fn header(request: &Request<Incoming>, name: header::HeaderName) -> Option<&str> {
    request.headers().get(name).and_then(|value| value.to_str().ok())
}

async fn route<H: Doorkeeper>(
    web: &Arc<Web<H>>,
    served: &Served,
    peer: SocketAddr,
    request: Request<Incoming>,
) -> Response<Body> {
    let host = header(&request, header::HOST).unwrap_or_default().to_owned();
    if !guard::host_allowed(&host, web.bound, &served.names) {
        tracing::warn!(%peer, host = %host.escape_debug(), "a web request by a name Switchboard does not answer to");
        return pages::text(StatusCode::MISDIRECTED_REQUEST, "Switchboard does not answer to this address.");
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return pages::text(StatusCode::METHOD_NOT_ALLOWED, "Only pages are served here.");
    }
    let path = request.uri().path().to_owned();
    if path == "/pair" {
        return pair(web, peer, &request).await;
    }
    if guard::is_public(&path) {
        return pages::public(&path, web.options.assets.as_ref());
    }
    if path == guard::SOCKET_PATH {
        let origin = header(&request, header::ORIGIN);
        if !guard::origin_allowed(origin, &host, served.tls.is_some()) {
            tracing::warn!(%peer, origin = ?origin.map(str::escape_debug), "a web socket from another origin");
            return pages::text(StatusCode::FORBIDDEN, "The engine's socket opens only from its own pages.");
        }
    }
    let cookies: Vec<&str> = request.headers().get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).collect();
    let admitted = match pairing::credential_in(&cookies.join("; ")) {
        Some((device, secret)) => web.door.admit(device, secret, peer.ip().to_string()).await,
        None => None,
    };
    match (path == guard::SOCKET_PATH, admitted) {
        (true, admitted) => socket(web, request, admitted).await,
        (false, Some(_)) => pages::asset(&path, web.options.assets.as_ref()),
        (false, None) => pages::not_paired(&path),
    }
}

/// Opens the WebSocket and carries it to a framed connection of the device;
/// without one (not paired, or unpaired since the page loaded) it closes at
/// once saying so, so the page stops reconnecting and sends its user to pair.
async fn socket<H: Doorkeeper>(
    web: &Arc<Web<H>>,
    request: Request<Incoming>,
    admitted: Option<super::Admitted>,
) -> Response<Body> {
    let (mut parts, _) = request.into_parts();
    let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(upgrade) => upgrade,
        Err(rejection) => return pages::text(StatusCode::BAD_REQUEST, &rejection.body_text()),
    };
    let web = web.clone();
    let longest = switchboard_api::wire::MAX_FRAME_BYTES + 5;
    let upgrade = upgrade.max_message_size(longest).max_frame_size(longest);
    match admitted {
        Some(admitted) => upgrade.on_upgrade(move |socket| super::bridge::carry(socket, web, admitted)),
        None => upgrade.on_upgrade(super::bridge::turn_away),
    }
    .map(Body::new)
}

/// `/pair`: with a code, pairs this browser and sends it to the UI with its
/// credential; without one, the page that asks for it.
async fn pair<H: Doorkeeper>(web: &Arc<Web<H>>, peer: SocketAddr, request: &Request<Incoming>) -> Response<Body> {
    let code = request.uri().query().and_then(|query| {
        query.split('&').find_map(|pair| pair.strip_prefix("code=")).map(|code| code.replace('+', " "))
    });
    let Some(code) = code.map(|code| pairing::normalize_code(&code)).filter(|code| !code.is_empty()) else {
        return pages::pairing(StatusCode::OK, None);
    };
    let user_agent = header(request, header::USER_AGENT).unwrap_or_default().to_owned();
    // One attempt at a time, each after the wait the wrong codes before it earned.
    let turn = web.pairing_turn.lock().await;
    let refusal = match pairing::attempt(web.door.wrong_codes().await, web.options.slowing) {
        Attempt::Refused => Some(super::PairRefusal::TooMany),
        Attempt::JudgedAfter(wait) => {
            tokio::time::sleep(wait).await;
            match web.door.redeem(code, user_agent, peer.ip().to_string()).await {
                Ok(paired) => {
                    drop(turn);
                    tracing::info!(%peer, device = %pairing::device_label(paired.device), "a browser was paired");
                    return pages::paired(&pairing::set_cookie(paired.device, &paired.secret));
                }
                Err(refusal) => Some(refusal),
            }
        }
    };
    drop(turn);
    tracing::warn!(%peer, ?refusal, "a pairing code was refused");
    let status = match refusal {
        Some(super::PairRefusal::TooMany) => StatusCode::TOO_MANY_REQUESTS,
        _ => StatusCode::FORBIDDEN,
    };
    pages::pairing(status, refusal.map(|refusal| refusal.to_string()).as_deref())
}
