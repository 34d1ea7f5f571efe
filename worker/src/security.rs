//! The guard in front of every request: Host, Origin, CORS and Private Network Access preflights,
//! the pairing token, POST bodies, and the security headers on every answer.
//!
//! Localhost servers get taken over through DNS rebinding (a hostile name that resolves to
//! 127.0.0.1, so the browser thinks the page and the worker share an origin), through cross-site
//! "simple" requests (text/plain POSTs need no preflight) and through loose CORS. So, before any
//! routing, static files and the event stream included:
//!
//! 1. `Host` must be exactly `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT` (403).
//! 2. `Origin`, when sent, must be one of those three origins or an `--origin` given at launch,
//!    byte for byte (403). There is no wildcard, no `null`, and no "Origin equals Host" shortcut.
//! 3. `OPTIONS` is only ever a CORS preflight from an allowed origin; it is answered here, with
//!    `Access-Control-Allow-Private-Network: true` when asked, and never reaches a route.
//! 4. `/api/` needs the pairing token in `X-Bookside-Token`, compared in constant time (401).
//!    Browsers cannot put a custom header on a cross-site request without a preflight, and the
//!    preflight only succeeds for allowed origins.
//! 5. A POST must say `Content-Type: application/json` (415), which also forces a preflight, and
//!    is capped at [`BODY_CAP`] bytes (413).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::ApiError;

/// The header that carries the pairing token on API calls.
pub const TOKEN_HEADER: &str = "x-bookside-token";
/// Largest request body accepted, in bytes. A run request is `{"session":"S1.3"}`.
pub const BODY_CAP: usize = 16 * 1024;

/// The per-launch pairing token: 256 bits from the operating system, shown once in the URL the
/// worker prints and never written to disk.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    pub fn generate() -> anyhow::Result<Token> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("the OS gave no randomness for the pairing token ({e})"))?;
        Ok(Token(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Constant-time comparison, so response timing says nothing about how much of a guess matched.
    pub fn matches(&self, candidate: &[u8]) -> bool {
        self.0.as_bytes().ct_eq(candidate).into()
    }
}

/// What this launch allows: its port, token, origins, and the CSP of the site it serves.
#[derive(Debug)]
pub struct Policy {
    hosts: [String; 3],
    origins: Vec<String>,
    token: Token,
    csp: HeaderValue,
}

impl Policy {
    /// `extra_origins` are the `--origin` values, already normalised by [`normalize_origin`];
    /// `inline_scripts` are the bodies of the pages' inline scripts (index.html's and
    /// chapter.html's, which share some), each allowed once by hash.
    pub fn new(port: u16, extra_origins: Vec<String>, token: Token, inline_scripts: &[String]) -> Policy {
        let hosts = [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")];
        let mut origins: Vec<String> = hosts.iter().map(|h| format!("http://{h}")).collect();
        origins.extend(extra_origins);
        let unique: std::collections::BTreeSet<&String> = inline_scripts.iter().collect();
        let hashes: String = unique
            .into_iter()
            .map(|s| format!(" 'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(s.as_bytes()))))
            .collect();
        // 'wasm-unsafe-eval' lets the page compile its WebAssembly and nothing else; inline styles
        // are allowed because components set style attributes, inline scripts only by hash.
        let csp = format!(
            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{hashes}; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
             frame-ancestors 'none'"
        );
        let csp = HeaderValue::from_str(&csp).expect("the CSP is printable ASCII");
        Policy { hosts, origins, token, csp }
    }

    fn allowed_origin(&self, origin: &[u8]) -> Option<&str> {
        self.origins.iter().find(|o| o.as_bytes() == origin).map(String::as_str)
    }
}

/// Turns an `--origin` value into the exact form browsers send: `scheme://host[:port]`, lower
/// case, no default port, no path. Refuses wildcards, `null`, and anything but http(s).
pub fn normalize_origin(raw: &str) -> Result<String, String> {
    let lower = raw.trim().to_ascii_lowercase();
    let (scheme, rest) = lower
        .split_once("://")
        .ok_or_else(|| format!("--origin {raw}: write a full origin such as https://book.example.org"))?;
    let default_port = match scheme {
        "http" => "80",
        "https" => "443",
        _ => return Err(format!("--origin {raw}: only http and https origins can be allowed")),
    };
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.is_empty()
        || authority.contains(['/', '?', '#', '@', '*', ' ', '\\'])
        || !authority.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(format!("--origin {raw}: give only scheme, host and port (no path, wildcard or user), e.g. https://book.example.org"));
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, _)) if !host.ends_with(']') && host.contains(':') => (authority, None), // bare IPv6: refused below
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    if host.is_empty() || (host.contains(':') && !(host.starts_with('[') && host.ends_with(']'))) {
        return Err(format!("--origin {raw}: the host is missing or malformed"));
    }
    match port {
        Some(p) if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) || p.parse::<u16>().is_err() => {
            Err(format!("--origin {raw}: the port must be a number up to 65535"))
        }
        Some(p) if p == default_port => Ok(format!("{scheme}://{host}")),
        Some(p) => Ok(format!("{scheme}://{host}:{}", p.parse::<u16>().expect("checked above"))),
        None => Ok(format!("{scheme}://{host}")),
    }
}

/// The middleware: refuses what the policy forbids, answers preflights, decorates every answer.
pub async fn guard(State(policy): State<Arc<Policy>>, request: Request, next: Next) -> Response {
    let api = is_api(request.uri().path());
    let origin = match check_host(&policy, &request).and_then(|()| check_origin(&policy, request.headers())) {
        Ok(origin) => origin,
        // Refused before anything else: no CORS headers for an origin we have not accepted.
        Err(e) => return decorate(e.into_response(), &policy, None, api),
    };
    let preflight = request.method() == Method::OPTIONS;
    match admit(&policy, &request, origin.as_deref(), api) {
        // A refused preflight grants nothing; other refusals stay readable to allowed origins.
        Err(e) if preflight => decorate(e.into_response(), &policy, None, api),
        Err(e) => decorate(e.into_response(), &policy, origin.as_deref(), api),
        Ok(Some(answer)) => decorate(answer, &policy, origin.as_deref(), api),
        Ok(None) => decorate(next.run(request).await, &policy, origin.as_deref(), api),
    }
}

fn is_api(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}

fn check_host(policy: &Policy, request: &Request) -> Result<(), ApiError> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    let host = hosts.next();
    if hosts.next().is_some() {
        return Err(ApiError::BadHost);
    }
    // An absolute-form request line (`GET http://x/ HTTP/1.1`) or HTTP/2's :authority must name
    // this worker too, and agree with Host when both are present.
    let authority = request.uri().authority().map(|a| a.as_str().as_bytes());
    let allowed = |h: &[u8]| policy.hosts.iter().any(|ok| ok.as_bytes() == h);
    match (host.map(HeaderValue::as_bytes), authority) {
        (None, None) => Err(ApiError::BadHost),
        (Some(h), None) | (None, Some(h)) if allowed(h) => Ok(()),
        (Some(h), Some(a)) if h == a && allowed(h) => Ok(()),
        _ => Err(ApiError::BadHost),
    }
}

fn check_origin(policy: &Policy, headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let mut origins = headers.get_all(header::ORIGIN).iter();
    let Some(origin) = origins.next() else { return Ok(None) };
    if origins.next().is_some() {
        return Err(ApiError::BadOrigin);
    }
    policy.allowed_origin(origin.as_bytes()).map(|o| Some(o.to_owned())).ok_or(ApiError::BadOrigin)
}

/// The checks after Host and Origin. `Ok(Some(_))` is a finished preflight answer.
fn admit(policy: &Policy, request: &Request, origin: Option<&str>, api: bool) -> Result<Option<Response>, ApiError> {
    let method = request.method();
    if method == Method::OPTIONS {
        return preflight(request.headers(), origin).map(Some);
    }
    if ![Method::GET, Method::HEAD, Method::POST].contains(method) {
        return Err(ApiError::MethodNotAllowed);
    }
    if api {
        let mut tokens = request.headers().get_all(TOKEN_HEADER).iter();
        match (tokens.next(), tokens.next()) {
            (None, _) => return Err(ApiError::MissingToken),
            (Some(t), None) if policy.token.matches(t.as_bytes()) => {}
            _ => return Err(ApiError::BadToken),
        }
    }
    if method == Method::POST {
        let json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")));
        if !json {
            return Err(ApiError::UnsupportedMediaType);
        }
        let length = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
        if length.is_some_and(|n| n > BODY_CAP as u64) {
            return Err(ApiError::TooLarge);
        }
    }
    Ok(None)
}

fn preflight(headers: &HeaderMap, origin: Option<&str>) -> Result<Response, ApiError> {
    let Some(origin) = origin else {
        return Err(ApiError::BadPreflight("OPTIONS is only answered as a CORS preflight from an allowed Origin".to_owned()));
    };
    let method = headers.get(header::ACCESS_CONTROL_REQUEST_METHOD).map(HeaderValue::as_bytes);
    if !matches!(method, Some(b"GET" | b"POST")) {
        return Err(ApiError::BadPreflight("only GET and POST requests can be preflighted".to_owned()));
    }
    let asked = headers.get(header::ACCESS_CONTROL_REQUEST_HEADERS).and_then(|v| v.to_str().ok()).unwrap_or("");
    let unknown: Vec<&str> = asked
        .split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty() && !h.eq_ignore_ascii_case("content-type") && !h.eq_ignore_ascii_case(TOKEN_HEADER))
        .collect();
    if !unknown.is_empty() {
        return Err(ApiError::BadPreflight(format!(
            "only the headers content-type and {TOKEN_HEADER} are allowed, not {}",
            unknown.join(", ")
        )));
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    let h = response.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_str(origin).expect("origins are header-safe"));
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST"));
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("content-type, x-bookside-token"));
    h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    // Private Network Access (and its successor's name): a public page may reach this loopback
    // worker only if the worker says so, and it says so only to origins it already allows.
    for (ask, allow) in [
        ("access-control-request-private-network", "access-control-allow-private-network"),
        ("access-control-request-local-network", "access-control-allow-local-network"),
    ] {
        if headers.get(ask).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true")) {
            h.insert(HeaderName::from_static(allow), HeaderValue::from_static("true"));
        }
    }
    Ok(response)
}

/// Headers on every answer, refusals included.
fn decorate(mut response: Response<Body>, policy: &Policy, origin: Option<&str>, api: bool) -> Response<Body> {
    let h = response.headers_mut();
    h.append(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(origin) = origin {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_str(origin).expect("origins are header-safe"));
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(HeaderName::from_static("cross-origin-opener-policy"), HeaderValue::from_static("same-origin"));
    h.insert(HeaderName::from_static("cross-origin-resource-policy"), HeaderValue::from_static("same-origin"));
    h.insert(header::CONTENT_SECURITY_POLICY, policy.csp.clone());
    if api {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// The bodies of the inline `<script>` elements of a page (Trunk writes one that loads the app),
/// exactly as the browser hashes them for CSP.
pub fn inline_scripts(html: &str) -> Vec<String> {
    let mut scripts = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find("<script") {
        let after_open = &rest[open..];
        let Some(tag_end) = after_open.find('>') else { break };
        let tag = &after_open[..tag_end];
        let body_and_more = &after_open[tag_end + 1..];
        let Some(close) = body_and_more.find("</script") else { break };
        if !tag.contains(" src=") && !tag.contains("\tsrc=") && !tag.contains("\nsrc=") {
            scripts.push(body_and_more[..close].to_owned());
        }
        rest = &body_and_more[close..];
        rest = &rest["</script".len()..];
    }
    scripts
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::{Token, inline_scripts, normalize_origin};

    #[test]
    fn origins_are_normalised_to_what_browsers_send() {
        let shown: Vec<String> = [
            "https://Book.Example.org",
            "https://book.example.org/",
            "https://book.example.org:443",
            "http://book.example.org:8080",
            "http://[::1]:9000",
            "*",
            "null",
            "file://",
            "https://*.example.org",
            "https://book.example.org/path",
            "https://user@book.example.org",
            "ftp://book.example.org",
            "https://book.example.org:99999",
            "https://book.example.org:",
        ]
        .iter()
        .map(|o| match normalize_origin(o) {
            Ok(n) => format!("{o} -> {n}"),
            Err(e) => format!("{o} -> error: {e}"),
        })
        .collect();
        expect![[r#"
            https://Book.Example.org -> https://book.example.org
            https://book.example.org/ -> https://book.example.org
            https://book.example.org:443 -> https://book.example.org
            http://book.example.org:8080 -> http://book.example.org:8080
            http://[::1]:9000 -> http://[::1]:9000
            * -> error: --origin *: write a full origin such as https://book.example.org
            null -> error: --origin null: write a full origin such as https://book.example.org
            file:// -> error: --origin file://: only http and https origins can be allowed
            https://*.example.org -> error: --origin https://*.example.org: give only scheme, host and port (no path, wildcard or user), e.g. https://book.example.org
            https://book.example.org/path -> error: --origin https://book.example.org/path: give only scheme, host and port (no path, wildcard or user), e.g. https://book.example.org
            https://user@book.example.org -> error: --origin https://user@book.example.org: give only scheme, host and port (no path, wildcard or user), e.g. https://book.example.org
            ftp://book.example.org -> error: --origin ftp://book.example.org: only http and https origins can be allowed
            https://book.example.org:99999 -> error: --origin https://book.example.org:99999: the port must be a number up to 65535
            https://book.example.org: -> error: --origin https://book.example.org:: the port must be a number up to 65535"#]]
        .assert_eq(&shown.join("\n"));
    }

    #[test]
    fn tokens_are_long_random_and_compared_whole() {
        let a = Token::generate().unwrap();
        let b = Token::generate().unwrap();
        assert_eq!(a.as_str().len(), 64, "256 bits as hex");
        assert_ne!(a.as_str(), b.as_str());
        assert!(a.matches(a.as_str().as_bytes()));
        assert!(!a.matches(b.as_str().as_bytes()));
        assert!(!a.matches(&a.as_str().as_bytes()[..63]));
        assert!(!a.matches(b""));
        assert!(!format!("{a:?}").contains(a.as_str()), "Debug must not print the token");
    }

    #[test]
    fn trunks_inline_loader_is_found_and_external_scripts_are_not() {
        let html = "<head><script type=\"module\">\nimport init from '/app.js';\nawait init();\n</script><script src=\"/x.js\"></script><script>a()</script></head>";
        expect![[r#"["\nimport init from '/app.js';\nawait init();\n", "a()"]"#]].assert_eq(&format!("{:?}", inline_scripts(html)));
    }
}
