//! How connections are taken, so that slow or greedy clients cannot starve the rest: each
//! connection is served by hyper with a deadline for every request's headers (which also
//! ends a keep-alive connection left idle), each request's body is read within its own
//! deadline and size, at most [`Limits::connections`] are served at once (more wait to be
//! accepted) and at most [`Limits::connections_per_client`] from one client (more are
//! answered 503 at once). A stop lets the requests under way finish.
//!
//! Every request carries the [`Client`] it comes from, for these limits and the
//! throttling of wrong tokens.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, Ipv6Addr};
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

use super::{Limits, Shared};
use crate::error::Error;

/// The largest body a request may have: the pages' forms send a token, a note, a ref.
pub const BODY_MAX: usize = 64 * 1024;

/// Who a request comes from, as the limits count clients: its IPv4 address, or the /64
/// network of an IPv6 one (what a single subscriber is given, every address of it alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Client(IpAddr);

impl Client {
    pub fn of(ip: IpAddr) -> Client {
        match ip {
            IpAddr::V4(_) => Client(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Client(IpAddr::V4(v4)),
                None => Client(IpAddr::V6(Ipv6Addr::from_bits(
                    v6.to_bits() & !u128::from(u64::MAX),
                ))),
            },
        }
    }
}

/// A request served without a connection of [`serve`] (none in the server itself) counts
/// as one unknown client, never as none.
impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Client, Infallible> {
        Ok(parts
            .extensions
            .get::<Client>()
            .copied()
            .unwrap_or(Client(IpAddr::V6(Ipv6Addr::UNSPECIFIED))))
    }
}

/// Serves `router` on `listener` within `limits` until `shutdown` completes; then accepts
/// no more and returns once every connection has ended (each finishing the request under
/// way).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: &Limits,
    shutdown: impl Future<Output = ()>,
) -> Result<(), Error> {
    let open = Arc::new(Semaphore::new(limits.connections as usize));
    let per_client = Arc::new(PerClient {
        most: limits.connections_per_client,
        open: Mutex::default(),
    });
    let (stop, stopped) = watch::channel(());
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_time);
    let mut shutdown = pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = open.clone().acquire_owned() => permit
                .map_err(|e| Error::Config(format!("the web server's connections: {e}")))?,
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    not_accepted(e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let client = Client::of(peer.ip());
        let Some(slot) = per_client.take(client) else {
            too_many(&stream);
            continue;
        };
        let router = TowerToHyperService::new(router.clone());
        let service = hyper::service::service_fn(move |mut request: Request<_>| {
            request.extensions_mut().insert(client);
            hyper::service::Service::call(&router, request)
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let _held = (permit, slot);
            let mut connection = pin!(connection);
            let mut stopping = false;
            let ended = loop {
                tokio::select! {
                    ended = connection.as_mut() => break ended,
                    _ = stopped.changed(), if !stopping => {
                        stopping = true;
                        connection.as_mut().graceful_shutdown();
                    }
                }
            };
            // A client that went away, or was too slow: its own trouble, not the server's.
            if let Err(e) = ended {
                tracing::debug!("connection from {peer} ended: {e}");
            }
        });
    }
    drop(listener);
    // Every connection told to finish its request and close, then waited for: each holds
    // a permit until it ends.
    stop.send_replace(());
    drop(
        open.acquire_many(limits.connections)
            .await
            .map_err(|e| Error::Config(format!("the web server's connections: {e}")))?,
    );
    Ok(())
}

/// An accept that failed: a connection reset before it was taken is nothing; anything
/// else (no file descriptor left…) is said, and accepting pauses a moment rather than spin.
async fn not_accepted(error: std::io::Error) {
    use std::io::ErrorKind;
    if !matches!(
        error.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionRefused | ErrorKind::ConnectionReset
    ) {
        tracing::warn!("could not accept a connection: {error}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The answer to a client that already holds all the connections it may: a 503 written at
/// once on the new connection, which is then closed.
fn too_many(stream: &TcpStream) {
    let why = "Too many connections from this address: close some first.\n";
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Retry-After: 10\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{why}",
        why.len()
    );
    // A new connection's send buffer is empty: the answer fits, or the client is gone.
    if let Err(e) = stream.try_write(answer.as_bytes()) {
        tracing::debug!("a client over its connections was not told: {e}");
    }
}

/// The connections open from each client; only clients with one open are listed, so the
/// table is never larger than [`Limits::connections`].
struct PerClient {
    most: u32,
    open: Mutex<HashMap<Client, u32>>,
}

impl PerClient {
    /// A connection for `client`, unless it holds as many as it may.
    fn take(self: &Arc<Self>, client: Client) -> Option<Slot> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let held = open.entry(client).or_insert(0);
        if *held >= self.most {
            return None;
        }
        *held += 1;
        Some(Slot {
            of: self.clone(),
            client,
        })
    }
}

/// A client's connection, given back when it ends.
struct Slot {
    of: Arc<PerClient>,
    client: Client,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.of.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = open.get_mut(&self.client) {
            *held -= 1;
            if *held == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// Reads a request's body, at most [`BODY_MAX`] bytes within [`Limits::body_time`], before
/// any handler sees it: a client sending it slowly is answered 408 and its connection
/// closed. A request without a body passes at once.
pub async fn bounded_body(State(app): State<Shared>, request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_MAX as u64) {
        return closing(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("A request's body is {} KiB at most.", BODY_MAX / 1024),
        );
    }
    let (parts, body) = request.into_parts();
    let limit = app.limits.body_time;
    match tokio::time::timeout(limit, axum::body::to_bytes(body, BODY_MAX)).await {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(e)) => closing(
            StatusCode::BAD_REQUEST,
            format!("The request's body could not be read: {e}."),
        ),
        Err(_) => closing(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "The request's body took more than {} s to arrive; send it again.",
                limit.as_secs_f64()
            ),
        ),
    }
}

/// An answer after which the connection is closed: what is left of the request is not read.
fn closing(status: StatusCode, why: String) -> Response {
    let mut response = (status, why).into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_an_ipv4_address_or_an_ipv6_network() {
        let client = |s: &str| Client::of(s.parse().unwrap());
        assert_eq!(client("10.0.0.1"), Client("10.0.0.1".parse().unwrap()));
        assert_ne!(client("10.0.0.1"), client("10.0.0.2"));
        assert_eq!(client("2001:db8:1:2::1"), client("2001:db8:1:2:ffff::9"));
        assert_ne!(client("2001:db8:1:2::1"), client("2001:db8:1:3::1"));
        assert_eq!(client("::ffff:10.0.0.1"), client("10.0.0.1"));
    }

    #[test]
    fn a_client_holds_at_most_its_connections_and_the_table_empties() {
        let per_client = Arc::new(PerClient {
            most: 2,
            open: Mutex::default(),
        });
        let a = Client::of("10.0.0.1".parse().unwrap());
        let b = Client::of("10.0.0.2".parse().unwrap());
        let first = per_client.take(a).unwrap();
        let second = per_client.take(a).unwrap();
        assert!(per_client.take(a).is_none(), "a third from the same client");
        let other = per_client.take(b).unwrap();
        drop(first);
        let third = per_client.take(a).unwrap();
        drop((second, third, other));
        assert!(per_client.open.lock().unwrap().is_empty());
    }
}
