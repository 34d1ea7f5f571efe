//! `cargo xtask start --check`: what the README's first command does, checked end to end. The
//! real release worker starts on a free port, and plain HTTP over a socket (no client library, so
//! nothing here can smooth over a bad response) must get the app's page and a chapter page, each
//! with the wasm that wasm-opt produced for it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail, ensure};

use crate::root;

/// Stops the worker however the check ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn check_start(mut serve: Command) -> anyhow::Result<()> {
    let child = serve.args(["--port", "0"]).stdout(Stdio::piped()).spawn().context("cannot start target/release/bookside")?;
    let mut worker = Running(child);
    let stdout = worker.0.stdout.take().context("the worker's stdout is not piped")?;
    let mut stdout = BufReader::new(stdout);
    let mut first = String::new();
    stdout.read_line(&mut first).context("cannot read what the worker printed")?;
    // Keep reading, as a terminal would: a worker whose stdout closed early would be tested on a
    // path a reader never takes.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .with_context(|| format!("the worker did not print its URL; it printed: {first:?}"))?
        .to_owned();

    // The app at `/`, and a chapter page with its own small entry point (app/src/bin/chapter.rs).
    for (path, bin) in [("/", "bookside-app"), ("/book", "bookside-chapter")] {
        let (status, page) = get(&addr, path)?;
        ensure!(status == 200, "GET {path} answered {status}, not 200");
        let page = String::from_utf8_lossy(&page);
        let wasm = page
            .split(['"', '\''])
            .find(|s| s.ends_with("_bg.wasm"))
            .with_context(|| format!("the page at {path} loads no wasm:\n{page}"))?
            .to_owned();
        let (status, served) = get(&addr, &format!("/{}", wasm.trim_start_matches('/')))?;
        ensure!(status == 200, "GET {wasm} answered {status}, not 200");
        let optimised = std::fs::read(root().join(format!("target/wasm-opt/release/{bin}_bg.wasm")))
            .with_context(|| format!("no wasm-opt output for {bin} in target/wasm-opt/release"))?;
        ensure!(served == optimised, "{wasm} as served at {path} is not {bin}'s wasm-opt output ({} bytes served, {} expected)", served.len(), optimised.len());
        eprintln!("xtask: start checked: http://{addr}{path} answered 200 with {bin}'s wasm-opt'd wasm ({} bytes)", served.len());
    }
    Ok(())
}

/// One GET with `Connection: close`; returns the status and the (de-chunked) body.
fn get(addr: &str, path: &str) -> anyhow::Result<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(addr).with_context(|| format!("cannot connect to {addr}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).with_context(|| format!("reading GET {path}"))?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").context("the response has no header end")?;
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body = raw[split + 4..].to_vec();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).context("the response has no status")?;
    let body = if head.contains("transfer-encoding: chunked") { dechunk(&body)? } else { body };
    Ok((status, body))
}

fn dechunk(mut data: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = data.windows(2).position(|w| w == b"\r\n").context("a chunk size line has no end")?;
        let size = std::str::from_utf8(&data[..eol])?.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size, 16).with_context(|| format!("bad chunk size {size:?}"))?;
        data = &data[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size + 2 {
            bail!("a chunk is cut short");
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}
