//! The worker keeps serving when nobody reads what it prints (a closed terminal, a script that
//! only wanted the URL): `cargo xtask start --check` once closed the pipe after the URL line and
//! the worker died on its next line of output.

mod support;

use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

use support::{alive, eventually, fixture_book, fixture_site, send};

#[test]
fn serving_survives_a_closed_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let book = fixture_book(dir.path(), &[], &[]);
    let site = fixture_site(dir.path());
    // The port must be known without reading the banner, so take a free one and hand it over.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bookside"))
        .args(["serve", "--port", &port.to_string(), "--book"])
        .arg(&book)
        .arg("--site")
        .arg(&site)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start bookside serve");
    drop(child.stdout.take());

    // The worker prints its banner after binding and before serving, so an answered request
    // means the banner went into the closed pipe first.
    let listening = eventually(Duration::from_secs(20), || TcpStream::connect(("127.0.0.1", port)).is_ok());
    let status = listening.then(|| std::panic::catch_unwind(|| send(port, &format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}"), "").status));
    let survived = alive(child.id());
    let _ = child.kill();
    let _ = child.wait();
    assert!(survived, "the worker died once its stdout was closed");
    assert!(matches!(status, Some(Ok(200))), "GET / did not answer 200");
}
