//! The guard of the real `bookside serve`, over real HTTP: Host, Origin, token, bodies,
//! preflights, headers, and hostile session ids that must not run anything.

mod support;

use base64::Engine;
use sha2::{Digest, Sha256};
use support::{Card, Worker, fixture_book, fixture_site};

const HOSTED: &str = "https://book.example.org";

fn worker(dir: &std::path::Path) -> Worker {
    let book = fixture_book(
        dir,
        &[
            Card("S1.1", "Marker", Some("sh marker.sh")),
            Card("S1.2", "Reading only", None),
            Card("S1.4", "Needs a shell", Some("sh marker.sh; touch pwned")),
        ],
        &[("marker.sh", "echo ran > ran.txt\n")],
    );
    Worker::start(&book, &fixture_site(dir), &["--origin", HOSTED])
}

/// Every path kind the guard must cover: a static file, the SPA fallback, the API, the event
/// stream of a run that does not exist (refused before routing could say 404).
const PATHS: [&str; 4] = ["/", "/session/S1.1", "/api/health", "/api/runs/0000/events"];

#[test]
fn host_table() {
    let dir = tempfile::tempdir().unwrap();
    let w = worker(dir.path());
    let port = w.port;
    let other = if port == 65535 { 1 } else { port + 1 };
    let allowed = [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")];
    let denied = [
        Some(String::new()),
        Some(format!(":{port}")),
        Some(format!("{port}")),
        Some("evil.test".to_owned()),
        Some(format!("evil.test:{port}")),
        Some(format!("localhost.evil.test:{port}")),
        Some(format!("127.0.0.1.evil.test:{port}")),
        Some(format!("localhost.:{port}")),
        // Browsers send host names in lower case; anything else did not come from one.
        Some(format!("LOCALHOST:{port}")),
        Some("127.0.0.1".to_owned()),
        Some("localhost".to_owned()),
        Some(format!("127.0.0.1:{other}")),
        Some(format!("localhost:{other}")),
        Some(format!("0.0.0.0:{port}")),
        Some(format!("127.0.0.2:{port}")),
        Some(format!("127.1:{port}")),
        Some(format!("2130706433:{port}")),
        Some(format!("0x7f.0.0.1:{port}")),
        Some(format!("0177.0.0.1:{port}")),
        Some(format!("[::ffff:127.0.0.1]:{port}")),
        Some(format!("[0:0:0:0:0:0:0:1]:{port}")),
        Some(format!("::1:{port}")),
        Some(format!("127.0.0.1:{port}@evil.test")),
        None, // no Host header at all
    ];
    for path in PATHS {
        for host in &allowed {
            let r = w.raw(&format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nX-Bookside-Token: {}", w.token), "");
            assert_ne!(r.status, 403, "Host {host} on {path} should pass the guard: {}", r.body);
        }
        for host in &denied {
            let head = match host {
                Some(h) => format!("GET {path} HTTP/1.1\r\nHost: {h}\r\nX-Bookside-Token: {}", w.token),
                None => format!("GET {path} HTTP/1.1\r\nX-Bookside-Token: {}", w.token),
            };
            let r = w.raw(&head, "");
            assert_eq!(r.status, 403, "Host {host:?} on {path}: {}", r.body);
            assert_eq!(r.json()["error"], "bad-host", "Host {host:?} on {path}");
        }
    }
    // Two Host headers, one of them fine, and an absolute-form request line naming another host
    // (hyper may refuse these itself with 400; either way they never pass).
    let r = w.raw(&format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.test:{port}"), "");
    assert!(r.status == 403 || r.status == 400, "{r:?}");
    let r = w.raw(&format!("GET http://evil.test:{port}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}"), "");
    assert!(r.status == 403 || r.status == 400, "{r:?}");
}

#[test]
fn a_bad_host_is_refused_before_anything_else_on_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let w = worker(dir.path());
    let evil = format!("evil.test:{}", w.port);
    for head in [
        format!("POST /api/runs HTTP/1.1\r\nHost: {evil}\r\nContent-Type: text/plain"),
        format!("POST /api/runs HTTP/1.1\r\nHost: {evil}\r\nContent-Type: application/json\r\nX-Bookside-Token: {}", w.token),
        format!("OPTIONS /api/runs HTTP/1.1\r\nHost: {evil}\r\nOrigin: {HOSTED}\r\nAccess-Control-Request-Method: POST"),
        format!("DELETE /api/runs HTTP/1.1\r\nHost: {evil}"),
        format!("HEAD / HTTP/1.1\r\nHost: {evil}"),
    ] {
        let r = w.raw(&head, r#"{"session":"S1.1"}"#);
        assert_eq!(r.status, 403, "{head}: {r:?}");
    }
    assert!(!dir.path().join("book/ran.txt").exists(), "a refused request ran the command");
}

#[test]
fn dns_rebinding_is_refused_even_with_a_matching_origin() {
    let dir = tempfile::tempdir().unwrap();
    let w = worker(dir.path());
    let port = w.port;
    // What a page at http://evil.test:PORT sees after evil.test starts resolving to 127.0.0.1:
    // to the browser it is same-origin, so Origin matches Host and no preflight happens.
    for path in ["/", "/api/health"] {
        let r = w.raw(
            &format!("GET {path} HTTP/1.1\r\nHost: evil.test:{port}\r\nOrigin: http://evil.test:{port}\r\nX-Bookside-Token: {}", w.token),
            "",
        );
        assert_eq!(r.status, 403, "{path}: {r:?}");
        assert_eq!(r.json()["error"], "bad-host");
        assert_eq!(r.header("access-control-allow-origin"), None);
    }
    let r = w.raw(
        &format!("POST /api/runs HTTP/1.1\r\nHost: evil.test:{port}\r\nOrigin: http://evil.test:{port}\r\nContent-Type: text/plain"),
        r#"{"session":"S1.1"}"#,
    );
    assert_eq!(r.status, 403);
    assert!(!dir.path().join("book/ran.txt").exists());
}

#[test]
fn origin_table() {
    let dir = tempfile::tempdir().unwrap();
    let w = worker(dir.path());
    let port = w.port;
    let other = if port == 65535 { 1 } else { port + 1 };
    let allowed = [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}"), format!("http://[::1]:{port}"), HOSTED.to_owned()];
    let denied = [
        "null".to_owned(),
        "*".to_owned(),
        "file://".to_owned(),
        "file:///home/reader/index.html".to_owned(),
        String::new(),
        format!("http://127.0.0.1:{other}"),
        format!("http://localhost:{other}"),
        "http://127.0.0.1".to_owned(),
        format!("https://127.0.0.1:{port}"),
        format!("http://127.0.0.1:{port}/"),
        format!("HTTP://127.0.0.1:{port}"),
        format!("http://127.0.0.2:{port}"),
        format!("http://0.0.0.0:{port}"),
        format!("http://evil.test:{port}"),
        format!("http://localhost.evil.test:{port}"),
        format!("http://127.0.0.1.evil.test:{port}"),
        "http://book.example.org".to_owned(),
        "https://book.example.org:8443".to_owned(),
        "https://book.example.org.evil.test".to_owned(),
        "https://evilbook.example.org".to_owned(),
        "https://sub.book.example.org".to_owned(),
        "https://book.example.org/".to_owned(),
        "https://book-example.org".to_owned(),
    ];
    for path in ["/", "/api/health"] {
        let base = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Bookside-Token: {}", w.token);
        let r = w.raw(&base, "");
        assert_eq!(r.status, 200, "no Origin at all (a same-origin GET or a navigation)");
        assert!(r.headers_named("vary").iter().any(|v| v.contains("Origin")), "Vary: Origin on {path}");
        assert_eq!(r.header("access-control-allow-origin"), None);
        for origin in &allowed {
            let r = w.raw(&format!("{base}\r\nOrigin: {origin}"), "");
            assert_eq!(r.status, 200, "Origin {origin} on {path}: {}", r.body);
            assert_eq!(r.header("access-control-allow-origin"), Some(origin.as_str()), "echoes exactly the one origin");
            assert!(r.headers_named("vary").iter().any(|v| v.contains("Origin")));
        }
        for origin in &denied {
            let r = w.raw(&format!("{base}\r\nOrigin: {origin}"), "");
            assert_eq!(r.status, 403, "Origin {origin:?} on {path}: {}", r.body);
            assert_eq!(r.json()["error"], "bad-origin");
            assert_eq!(r.header("access-control-allow-origin"), None, "no CORS grant for {origin:?}");
            assert!(r.headers_named("vary").iter().any(|v| v.contains("Origin")));
        }
        let r = w.raw(&format!("{base}\r\nOrigin: {HOSTED}\r\nOrigin: http://evil.test"), "");
        assert_eq!(r.status, 403, "two Origin headers");
    }
}

#[test]
fn the_api_needs_the_token_and_the_site_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let w = worker(dir.path());
    let host = w.host();
    let r = w.raw(&format!("GET / HTTP/1.1\r\nHost: {host}"), "");
    assert_eq!(r.status, 200, "the page itself loads without a token");
    assert!(r.body.contains("import init"));
    let r = w.raw(&format!("GET /book.json HTTP/1.1\r\nHost: {host}"), "");
    assert_eq!(r.status, 200);
    assert!(r.json()["files"]["book.toml"].is_string());

    let wrong_same_length: String = w.token.chars().map(|c| if c == 'a' { 'b' } else { 'a' }).collect();
    let cases = [
        (format!("GET /api/health HTTP/1.1\r\nHost: {host}"), "missing-token"),
        (format!("GET /api/health?token={} HTTP/1.1\r\nHost: {host}", w.token), "missing-token"),
        (format!("GET /api/health HTTP/1.1\r\nHost: {host}\r\nCookie: token={}", w.token), "missing-token"),
        (format!("GET /api/health HTTP/1.1\r\nHost: {host}\r\nX-Bookside-Token: {wrong_same_length}"), "bad-token"),
        (format!("GET /api/health HTTP/1.1\r\nHost: {host}\r\nX-Bookside-Token: {}", &w.token[..32]), "bad-token"),
        (format!("GET /api/health HTTP/1.1\r\nHost: {host}\r\nX-Bookside-Token: {}x", w.token), "bad-token"),
        (format!("GET /api/health HTTP/1.1\r\nHost: {host}\r\nX-Bookside-Token: "), "bad-token"),
        (format!("GET /api/health HTTP/1.1\r\nHost: {host}\r\nX-Bookside-Token: {}\r\nX-Bookside-Token: x", w.token), "bad-token"),
        (format!("GET /api/runs/0000/events HTTP/1.1\r\nHost: {host}"), "missing-token"),
        (format!("POST /api/runs HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json"), "missing-token"),
    ];
    for (head, kind) in cases {
        let r = w.raw(&head, if head.starts_with("POST") { r#"{"session":"S1.1"}"# } else { "" });
        assert_eq!(r.status, 401, "{head}: {r:?}");
        assert_eq!(r.json()["error"], kind, "{head}");
    }
    let health = w.get("/api/health");
    assert_eq!(health.status, 200);
    assert_eq!(health.json()["name"], "bookside");
    assert_eq!(health.json()["book"], "Fixture book");
    assert_eq!(health.header("cache-control"), Some("no-store"));
    assert!(!dir.path().join("book/ran.txt").exists());
}

#[test]
fn post_bodies_must_be_small_json() {
    let dir = tempfile::tempdir().unwrap();
    let w = worker(dir.path());
    let base = format!("POST /api/runs HTTP/1.1\r\nHost: {}\r\nX-Bookside-Token: {}", w.host(), w.token);
    let body = r#"{"session":"S1.1"}"#;
    for (extra, expected) in [
        ("\r\nContent-Type: text/plain", 415),
        ("\r\nContent-Type: text/plain;charset=UTF-8", 415),
        ("\r\nContent-Type: application/x-www-form-urlencoded", 415),
        ("\r\nContent-Type: multipart/form-data; boundary=x", 415),
        ("\r\nContent-Type: application/jsonx", 415),
        ("", 415),
    ] {
        let r = w.raw(&format!("{base}{extra}"), body);
        assert_eq!(r.status, expected, "{extra:?}: {r:?}");
        assert_eq!(r.json()["error"], "unsupported-media-type");
    }
    let big = format!(r#"{{"session":"S1.1","pad":"{}"}}"#, "x".repeat(20 * 1024));
    let r = w.raw(&format!("{base}\r\nContent-Type: application/json"), &big);
    assert_eq!(r.status, 413, "{r:?}");
    assert_eq!(r.json()["error"], "too-large");
    // Without a Content-Length the cap still holds while the body streams in.
    let chunked = format!("{:x}\r\n{big}\r\n0\r\n\r\n", big.len());
    let r = w.raw(&format!("{base}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked"), &chunked);
    assert_eq!(r.status, 413, "{r:?}");
    assert!(!dir.path().join("book/ran.txt").exists(), "no refused body may start a run");
    let r = w.raw(&format!("{base}\r\nContent-Type: application/json; charset=utf-8"), body);
    assert_eq!(r.status, 202, "{r:?}");
}

#[test]
fn preflights_are_answered_for_allowed_origins_only() {
    let dir = tempfile::tempdir().unwrap();
    let w = worker(dir.path());
    let host = w.host();
    let preflight = |origin: &str, method: &str, headers: &str, pna: bool| {
        let mut head = format!(
            "OPTIONS /api/runs HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nAccess-Control-Request-Method: {method}\r\nAccess-Control-Request-Headers: {headers}"
        );
        if pna {
            head.push_str("\r\nAccess-Control-Request-Private-Network: true");
        }
        w.raw(&head, "")
    };
    let r = preflight(HOSTED, "POST", "content-type,x-bookside-token", true);
    assert_eq!(r.status, 204, "{r:?}");
    assert_eq!(r.header("access-control-allow-origin"), Some(HOSTED));
    assert_eq!(r.header("access-control-allow-private-network"), Some("true"));
    assert!(r.header("access-control-allow-headers").unwrap().contains("x-bookside-token"));
    assert!(r.headers_named("vary").iter().any(|v| v.contains("Origin")));
    let r = preflight(HOSTED, "GET", "x-bookside-token", false);
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-private-network"), None, "only when asked");

    for (origin, method, headers) in [
        ("https://evil.test", "POST", "content-type"),
        ("null", "POST", "content-type"),
        ("https://book.example.org.evil.test", "POST", "content-type"),
        (HOSTED, "DELETE", "content-type"),
        (HOSTED, "PUT", "content-type"),
        (HOSTED, "POST", "content-type,x-evil"),
    ] {
        let r = preflight(origin, method, headers, true);
        assert_eq!(r.status, 403, "{origin} {method} {headers}: {r:?}");
        assert_eq!(r.header("access-control-allow-private-network"), None);
        assert_eq!(r.header("access-control-allow-origin"), None);
    }
    let r = w.raw(&format!("OPTIONS /api/runs HTTP/1.1\r\nHost: {host}\r\nAccess-Control-Request-Method: POST"), "");
    assert_eq!(r.status, 403, "OPTIONS without an Origin is no preflight");
}

#[test]
fn the_site_carries_security_headers_and_is_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let site = fixture_site(dir.path());
    std::fs::write(site.join("pre.css"), "p { color: red }\n").unwrap();
    std::fs::write(site.join("pre.css.br"), "brotli bytes from the build").unwrap();
    let w = worker(dir.path());
    let host = w.host();
    let r = w.raw(&format!("GET / HTTP/1.1\r\nHost: {host}"), "");
    let csp = r.header("content-security-policy").expect("a CSP");
    assert!(csp.contains("script-src 'self' 'wasm-unsafe-eval'"), "{csp}");
    // Trunk's inline loader runs because its exact hash is allowed, not because inline is.
    let inline = "\nimport init from '/app.js';\nawait init();\n";
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(inline.as_bytes()));
    assert!(csp.contains(&format!("'sha256-{hash}'")), "{csp}");
    let script_src = csp.split(';').find(|d| d.trim().starts_with("script-src")).unwrap();
    assert!(!script_src.contains("unsafe-inline"), "{script_src}");
    assert!(csp.contains("frame-ancestors 'none'"));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(r.header("x-frame-options"), Some("DENY"));
    assert_eq!(r.header("referrer-policy"), Some("no-referrer"));

    let r = w.raw(&format!("GET /session/S1.1 HTTP/1.1\r\nHost: {host}"), "");
    assert_eq!(r.status, 200, "app routes fall back to index.html");
    assert!(r.body.contains("import init"));

    for path in ["/app.js", "/book.json"] {
        let r = w.raw(&format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip"), "");
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-encoding"), Some("gzip"), "{path} is compressed");
        let r = w.raw(&format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: br"), "");
        assert_eq!(r.header("content-encoding"), Some("br"), "{path} is compressed");
    }
    // A file precompressed at build time (`cargo xtask` writes `.br`/`.gz` beside the assets) is
    // sent as it is, not compressed again per response.
    let r = w.raw(&format!("GET /pre.css HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip, br"), "");
    assert_eq!((r.status, r.header("content-encoding")), (200, Some("br")));
    assert_eq!(r.body, "brotli bytes from the build");
    let r = w.raw(&format!("GET /pre.css HTTP/1.1\r\nHost: {host}"), "");
    assert_eq!((r.header("content-encoding"), r.body.as_str()), (None, "p { color: red }\n"), "identity without Accept-Encoding");
    let r = w.raw(&format!("GET /api/nothing-here HTTP/1.1\r\nHost: {host}\r\nX-Bookside-Token: {}", w.token), "");
    assert_eq!(r.status, 404, "unknown API paths are JSON 404s, not the app");
    assert_eq!(r.json()["error"], "not-found");
    let r = w.raw(&format!("GET /api/runs/%FF%FE/events HTTP/1.1\r\nHost: {host}\r\nX-Bookside-Token: {}", w.token), "");
    assert_eq!((r.status, r.json()["error"].as_str()), (404, Some("unknown-run")), "a malformed id is a JSON refusal too");
}

#[test]
fn hostile_session_ids_run_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let w = worker(dir.path());
    let ten_kb = "A".repeat(10 * 1024);
    let bodies = [
        (r#"{"session":"../x"}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":"S1.3;rm -rf ~"}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":"S1.1;rm -rf ~"}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":"S1.1 && touch pwned"}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":"$(touch pwned)"}"#.to_owned(), 400, "bad-session-id"),
        (format!(r#"{{"session":"{ten_kb}"}}"#), 400, "bad-session-id"),
        (format!(r#"{{"session":"S1.1{ten_kb}"}}"#), 400, "bad-session-id"),
        (r#"{"session":"S1.1\n"}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":" S1.1"}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":"s1.1"}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":"S1.1/../S1.1"}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":""}"#.to_owned(), 400, "bad-session-id"),
        (r#"{"session":"S9.9"}"#.to_owned(), 404, "unknown-session"),
        (r#"{"session":"S1.2"}"#.to_owned(), 422, "not-runnable"),
        (r#"{"session":"S1.4"}"#.to_owned(), 422, "not-runnable"),
        (r#"{"session":1}"#.to_owned(), 400, "bad-request"),
        (r#"{"session":["S1.1"]}"#.to_owned(), 400, "bad-request"),
        (r#"{"session":"S1.1","command":"touch pwned"}"#.to_owned(), 400, "bad-request"),
        (r#"{"session":"S1.1","cwd":"/"}"#.to_owned(), 400, "bad-request"),
        (r#"{"command":"touch pwned"}"#.to_owned(), 400, "bad-request"),
        ("not json".to_owned(), 400, "bad-request"),
    ];
    for (body, status, kind) in &bodies {
        let r = w.post("/api/runs", body);
        assert_eq!(r.status, *status, "{}: {}", &body[..body.len().min(60)], r.body);
        assert_eq!(r.json()["error"], *kind, "{}", &body[..body.len().min(60)]);
        assert!(r.body.len() < 1000, "the refusal does not echo a 10 KB id back");
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!dir.path().join("book/ran.txt").exists(), "a refused id ran the card's command");
    assert!(!dir.path().join("book/pwned").exists());
    // Nothing holds the clone either: the real session still runs, and only it.
    let run = w.start_run("S1.1");
    let (_, done) = w.events(&run);
    assert_eq!(done["outcome"], "pass", "{done}");
    assert!(dir.path().join("book/ran.txt").exists());
    assert!(!dir.path().join("book/pwned").exists());
}

#[test]
fn chapter_pages_use_the_chapter_template_and_its_loader_is_allowed_by_hash() {
    let dir = tempfile::tempdir().unwrap();
    let site = fixture_site(dir.path());
    // What Trunk builds from app/chapter.html: another page, another inline loader.
    let loader = "\nimport init from '/chapter.js';\nawait init();\n";
    std::fs::write(site.join("chapter.html"), format!("<!DOCTYPE html>\n<html><head><script type=\"module\">{loader}</script></head><body></body></html>\n")).unwrap();
    let w = worker(dir.path());
    let host = w.host();
    let r = w.raw(&format!("GET /book/guide HTTP/1.1\r\nHost: {host}"), "");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<div id=\"prerender\">") && r.body.contains("/chapter.js"), "{}", r.body);
    assert!(!r.body.contains("/app.js"), "a chapter page does not load the app");
    let csp = r.header("content-security-policy").expect("a CSP");
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(loader.as_bytes()));
    assert!(csp.contains(&format!("'sha256-{hash}'")), "{csp}");
    // Every other route is still the app.
    let r = w.raw(&format!("GET /guide HTTP/1.1\r\nHost: {host}"), "");
    assert!(r.body.contains("/app.js") && !r.body.contains("/chapter.js"));
}
