//! Precompresses the built site: `app.wasm` gets `app.wasm.br` (brotli, best quality) and
//! `app.wasm.gz` (gzip, best level) beside it, which `bookside serve` sends to browsers that
//! accept them (tower-http's `ServeDir::precompressed_*`). Compressing once at build time can
//! afford the slowest, smallest settings; compressing per response cannot.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// What is worth compressing: the assets Trunk emits. HTML is left to the server (it rewrites
/// chapter pages), and so is book.json (`cargo xtask dist` writes it after this runs).
const EXTENSIONS: &[&str] = &["wasm", "js", "css", "svg", "webmanifest"];
/// Below this, the headers cost more than compression saves.
const MIN_BYTES: usize = 1024;

pub fn precompress(dir: &Path) -> anyhow::Result<()> {
    let (mut before, mut after) = (0, 0);
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        if !path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e)) {
            continue;
        }
        let data = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        if data.len() < MIN_BYTES {
            continue;
        }
        let br = brotli(&data)?;
        let gz = gzip(&data)?;
        before += data.len();
        after += br.len();
        for (suffix, bytes) in [("br", &br), ("gz", &gz)] {
            let mut name = path.clone().into_os_string();
            name.push(format!(".{suffix}"));
            std::fs::write(&name, bytes).with_context(|| format!("cannot write {}", Path::new(&name).display()))?;
        }
    }
    eprintln!("xtask: precompressed {} KB of assets to {} KB of brotli", before / 1024, after / 1024);
    Ok(())
}

fn brotli(data: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 64 * 1024, 11, 22);
        writer.write_all(data)?;
    }
    Ok(out)
}

fn gzip(data: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data)?;
    Ok(encoder.finish()?)
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn assets_get_brotli_and_gzip_copies_that_decode_to_the_original() {
        let dir = std::env::temp_dir().join(format!("xtask-compress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let wasm: Vec<u8> = (0..50_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        std::fs::write(dir.join("app_bg.wasm"), &wasm).unwrap();
        std::fs::write(dir.join("index.html"), "<p>page</p>".repeat(500)).unwrap();
        std::fs::write(dir.join("tiny.css"), "p{}").unwrap();
        precompress(&dir).unwrap();

        let br = std::fs::read(dir.join("app_bg.wasm.br")).unwrap();
        let mut decoded = Vec::new();
        brotli::Decompressor::new(&br[..], 4096).read_to_end(&mut decoded).unwrap();
        assert_eq!(decoded, wasm);
        assert!(br.len() < wasm.len() / 4, "brotli at best quality: {} of {} bytes", br.len(), wasm.len());
        let gz = std::fs::read(dir.join("app_bg.wasm.gz")).unwrap();
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut decoded).unwrap();
        assert_eq!(decoded, wasm);
        // HTML is the server's to compress; a tiny file is not worth it.
        for skipped in ["index.html.br", "index.html.gz", "tiny.css.br", "tiny.css.gz"] {
            assert!(!dir.join(skipped).exists(), "{skipped} should not be written");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
