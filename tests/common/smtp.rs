//! A small SMTP receiver on a random loopback port, for the email's tests: EHLO or HELO,
//! AUTH PLAIN and LOGIN when it has a login to check, MAIL FROM, RCPT TO, DATA, RSET,
//! NOOP, QUIT; in clear, or over TLS as told ([`Security`]: STARTTLS offered, or TLS from the
//! first byte), with a certificate of tests/fixtures/tls. It records every message it takes
//! (and every one it was sent, taken or not), and refuses or hangs up as told. A login it
//! refuses is quoted back in its reply, as some servers do: the client must not repeat it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// How a receiver secures its connections.
#[derive(Clone)]
pub enum Security {
    /// In clear: STARTTLS is never offered.
    Clear,
    /// STARTTLS offered, then TLS with this certificate (as on port 587).
    StartTls(Arc<ServerConfig>),
    /// TLS with this certificate from the first byte (`smtps://`, as on port 465).
    Implicit(Arc<ServerConfig>),
}

/// The certificate `NAME.pem` of tests/fixtures/tls (for localhost, 127.0.0.1 and ::1),
/// as a TLS server shows it with its key `NAME.key`.
pub fn certificate(name: &str) -> Arc<ServerConfig> {
    use tokio_rustls::rustls::crypto::aws_lc_rs;
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_slice_iter(&fixture(&format!("{name}.pem")))
            .collect::<Result<_, _>>()
            .unwrap();
    let key = PrivateKeyDer::from_pem_slice(&fixture(&format!("{name}.key"))).unwrap();
    let config = ServerConfig::builder_with_provider(Arc::new(aws_lc_rs::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    Arc::new(config)
}

/// A file of tests/fixtures/tls.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls");
    std::fs::read(path.join(name)).unwrap()
}

/// What the receiver does with the message of its n-th connection (from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Take,
    /// 554 to the end of DATA.
    Refuse,
    /// Reads the message, then closes the connection without a word.
    HangUp,
}

/// One message as the receiver took it.
#[derive(Debug, Clone)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent, dot-stuffing undone, lines ending in CRLF.
    pub data: String,
    /// The user of the AUTH that preceded it.
    pub user: Option<String>,
    /// Whether it came over TLS.
    pub tls: bool,
}

/// A receiver running on the current runtime.
pub struct Receiver {
    pub addr: SocketAddr,
    pub mails: Arc<Mutex<Vec<Mail>>>,
    /// Every message sent to the end of its DATA, whatever the answer: what a server that
    /// took it and failed to say so would hold.
    pub offered: Arc<Mutex<Vec<Mail>>>,
    /// Connections accepted.
    pub connections: Arc<AtomicUsize>,
    /// Commands received, in order, every connection together (AUTH's answers included).
    pub commands: Arc<Mutex<Vec<String>>>,
    /// TLS from the first byte.
    implicit_tls: bool,
}

impl Receiver {
    /// `smtp://127.0.0.1:PORT`, or `smtps://…` for TLS from the first byte.
    pub fn url(&self) -> String {
        let scheme = if self.implicit_tls { "smtps" } else { "smtp" };
        format!("{scheme}://{}", self.addr)
    }

    pub fn commands(&self) -> Vec<String> {
        self.commands.lock().unwrap().clone()
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.mails.lock().unwrap().clone()
    }

    pub fn offered(&self) -> Vec<Mail> {
        self.offered.lock().unwrap().clone()
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

/// Starts a receiver: `login` is the user and password it accepts (then it offers AUTH and
/// takes no message without it); `answer(n)` says what it does with the n-th connection's
/// message.
pub async fn receiver(
    login: Option<(&str, &str)>,
    answer: impl Fn(usize) -> Answer + Send + Sync + 'static,
) -> Receiver {
    tls_receiver(Security::Clear, login, answer).await
}

/// Starts a receiver that secures its connections as `tls` says; else as [`receiver`].
pub async fn tls_receiver(
    tls: Security,
    login: Option<(&str, &str)>,
    answer: impl Fn(usize) -> Answer + Send + Sync + 'static,
) -> Receiver {
    let listener = TcpListener::bind(super::loopback()).await.unwrap();
    let receiver = Receiver {
        addr: listener.local_addr().unwrap(),
        mails: Arc::default(),
        offered: Arc::default(),
        connections: Arc::default(),
        commands: Arc::default(),
        implicit_tls: matches!(tls, Security::Implicit(_)),
    };
    let login = login.map(|(u, p)| (u.to_string(), p.to_string()));
    let shared = (
        receiver.mails.clone(),
        receiver.offered.clone(),
        receiver.connections.clone(),
        receiver.commands.clone(),
        Arc::new(answer),
        Arc::new(login),
    );
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (mails, offered, connections, commands, answer, login) = shared.clone();
            let n = connections.fetch_add(1, Ordering::SeqCst);
            let tls = tls.clone();
            tokio::spawn(async move {
                let session = Session {
                    mails,
                    offered,
                    commands,
                    login: (*login).clone(),
                    answer: answer(n),
                    tls,
                    secure: false,
                };
                session.serve(stream).await;
            });
        }
    });
    receiver
}

struct Session {
    mails: Arc<Mutex<Vec<Mail>>>,
    offered: Arc<Mutex<Vec<Mail>>>,
    commands: Arc<Mutex<Vec<String>>>,
    login: Option<(String, String)>,
    answer: Answer,
    tls: Security,
    /// The connection is over TLS.
    secure: bool,
}

impl Session {
    /// One connection, secured as the receiver's [`Security`] says; one that fails its TLS
    /// handshake (a client that does not trust the certificate) is dropped.
    async fn serve(mut self, stream: TcpStream) {
        match self.tls.clone() {
            Security::Clear => drop(self.run(stream, true).await),
            Security::Implicit(config) => {
                let Ok(stream) = TlsAcceptor::from(config).accept(stream).await else {
                    return;
                };
                self.secure = true;
                self.run(stream, true).await;
            }
            Security::StartTls(config) => {
                let Some(stream) = self.run(stream, true).await else {
                    return;
                };
                let Ok(stream) = TlsAcceptor::from(config).accept(stream).await else {
                    return;
                };
                self.secure = true;
                // The dialogue starts again, the greeting excepted (RFC 3207).
                self.run(stream, false).await;
            }
        }
    }

    /// Speaks SMTP over `stream`, opening with the greeting when `greet`, until the client
    /// leaves; or gives the stream back when the client asks for STARTTLS, offered.
    async fn run<S: AsyncRead + AsyncWrite + Unpin>(
        &mut self,
        stream: S,
        greet: bool,
    ) -> Option<S> {
        let (read, mut write) = tokio::io::split(stream);
        let mut lines = BufReader::new(read);
        let mut reply = async |text: &str| {
            let _ = write.write_all(format!("{text}\r\n").as_bytes()).await;
        };
        if greet {
            reply("220 receiver.test ESMTP").await;
        }
        let starttls = matches!(self.tls, Security::StartTls(_)) && !self.secure;
        let mut user: Option<String> = None;
        let mut mail: Option<Mail> = None;
        let mut line = String::new();
        loop {
            let command = read_line(&mut lines, &mut line).await?;
            self.commands.lock().unwrap().push(command.clone());
            let verb = command
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            match verb.as_str() {
                "EHLO" => {
                    reply("250-receiver.test").await;
                    if starttls {
                        reply("250-STARTTLS").await;
                    }
                    if self.login.is_some() {
                        reply("250-AUTH PLAIN LOGIN").await;
                    }
                    reply("250 8BITMIME").await;
                }
                "STARTTLS" if starttls => {
                    reply("220 2.0.0 ready to start TLS").await;
                    return Some(lines.into_inner().unsplit(write));
                }
                "HELO" | "NOOP" => reply("250 ok").await,
                "RSET" => {
                    mail = None;
                    reply("250 ok").await;
                }
                "AUTH" => {
                    let Some((ok_user, ok_password)) = &self.login else {
                        reply("502 5.5.1 no AUTH here").await;
                        continue;
                    };
                    let words: Vec<&str> = command.split_whitespace().collect();
                    let mechanism = words.get(1).map(|m| m.to_ascii_uppercase());
                    let given = match mechanism.as_deref() {
                        Some("PLAIN") => {
                            let answer = match words.get(2) {
                                Some(answer) => answer.to_string(),
                                None => {
                                    reply("334 ").await;
                                    read_line(&mut lines, &mut line).await?
                                }
                            };
                            let decoded = decode_base64(&answer);
                            let mut parts = decoded.split(|b| *b == 0).skip(1);
                            let user = parts.next().unwrap_or_default().to_vec();
                            let password = parts.next().unwrap_or_default().to_vec();
                            (answer, user, password)
                        }
                        Some("LOGIN") => {
                            reply("334 VXNlcm5hbWU6").await;
                            let user = read_line(&mut lines, &mut line).await?;
                            reply("334 UGFzc3dvcmQ6").await;
                            let password = read_line(&mut lines, &mut line).await?;
                            let answer = format!("{user} {password}");
                            (answer, decode_base64(&user), decode_base64(&password))
                        }
                        _ => {
                            reply("504 5.5.4 unknown mechanism").await;
                            continue;
                        }
                    };
                    let (answer, given_user, given_password) = given;
                    let given_user = String::from_utf8_lossy(&given_user).into_owned();
                    let given_password = String::from_utf8_lossy(&given_password).into_owned();
                    if &given_user == ok_user && &given_password == ok_password {
                        user = Some(given_user);
                        reply("235 2.7.0 accepted").await;
                    } else {
                        // As a careless server would: what it was sent, quoted back.
                        reply(&format!(
                            "535 5.7.8 login refused for {given_user} with {given_password} ({answer})"
                        ))
                        .await;
                    }
                }
                "MAIL" => {
                    if self.login.is_some() && user.is_none() {
                        reply("530 5.7.0 authentication required").await;
                        continue;
                    }
                    mail = Some(Mail {
                        from: address(&command),
                        to: Vec::new(),
                        data: String::new(),
                        user: user.clone(),
                        tls: self.secure,
                    });
                    reply("250 2.1.0 ok").await;
                }
                "RCPT" => match &mut mail {
                    Some(mail) => {
                        mail.to.push(address(&command));
                        reply("250 2.1.5 ok").await;
                    }
                    None => reply("503 5.5.1 MAIL first").await,
                },
                "DATA" => {
                    let Some(mut taken) = mail.take().filter(|m| !m.to.is_empty()) else {
                        reply("503 5.5.1 RCPT first").await;
                        continue;
                    };
                    reply("354 go ahead").await;
                    loop {
                        let text = read_line(&mut lines, &mut line).await?;
                        if text == "." {
                            break;
                        }
                        let text = text.strip_prefix('.').unwrap_or(&text);
                        taken.data.push_str(text);
                        taken.data.push_str("\r\n");
                    }
                    self.offered.lock().unwrap().push(taken.clone());
                    match self.answer {
                        Answer::Take => {
                            self.mails.lock().unwrap().push(taken);
                            reply("250 2.0.0 queued").await;
                        }
                        Answer::Refuse => reply("554 5.6.0 message refused").await,
                        Answer::HangUp => return None,
                    }
                }
                "QUIT" => {
                    reply("221 2.0.0 bye").await;
                    return None;
                }
                _ => reply("502 5.5.2 unknown command").await,
            }
        }
    }
}

/// One line without its line ending; `None` once the client has gone.
async fn read_line(lines: &mut (impl AsyncBufRead + Unpin), line: &mut String) -> Option<String> {
    line.clear();
    match lines.read_line(line).await {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_string()),
    }
}

/// The address in `MAIL FROM:<a@b> …` or `RCPT TO:<a@b>`.
fn address(command: &str) -> String {
    let start = command.find('<').map_or(0, |i| i + 1);
    let end = command[start..]
        .find('>')
        .map_or(command.len(), |i| start + i);
    command[start..end].to_string()
}

/// Standard base64 (padding optional); anything else is skipped.
pub fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let sextets: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(sextets.len() * 3 / 4);
    for chunk in sextets.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, s)| n | u32::from(*s) << (18 - 6 * i));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    out
}

/// A quoted-printable body decoded (RFC 2045): soft line breaks joined, `=XX` as bytes.
pub fn decode_quoted_printable(text: &str) -> String {
    let joined = text.replace("=\r\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'=', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

/// A message's headers (unfolded, names in lower case) and its body.
pub fn headers_and_body(message: &str) -> (Vec<(String, String)>, String) {
    let (head, body) = message.split_once("\r\n\r\n").unwrap_or((message, ""));
    let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
    let headers = unfolded
        .split("\r\n")
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (headers, body.to_string())
}

/// The value of a header, the first of that name.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The parts of a multipart message: each one's content type and its body decoded.
pub fn parts(message: &str) -> Vec<(String, String)> {
    let (headers, body) = headers_and_body(message);
    let content_type = header(&headers, "content-type").unwrap_or_default();
    let boundary = content_type
        .split(';')
        .filter_map(|p| p.trim().strip_prefix("boundary="))
        .next()
        .expect("a multipart message")
        .trim_matches('"')
        .to_string();
    body.split(&format!("--{boundary}"))
        .skip(1)
        .filter(|part| !part.starts_with("--"))
        .map(|part| {
            let (headers, body) = headers_and_body(part.trim_start_matches("\r\n"));
            let kind = header(&headers, "content-type").unwrap_or_default();
            let kind = kind
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            let body = body.strip_suffix("\r\n").unwrap_or(&body);
            let decoded = match header(&headers, "content-transfer-encoding") {
                Some(e) if e.eq_ignore_ascii_case("quoted-printable") => {
                    decode_quoted_printable(body)
                }
                Some(e) if e.eq_ignore_ascii_case("base64") => {
                    String::from_utf8(decode_base64(body)).unwrap()
                }
                _ => body.to_string(),
            };
            (kind, decoded.replace("\r\n", "\n"))
        })
        .collect()
}
