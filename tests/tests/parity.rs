//! Native/WASM parity: the same golden vectors through native core and through core's real
//! `wasm32-unknown-unknown` build running under wasmer, compared byte for byte.
//!
//! Both sides run `bookside_parity_shim::call` (natively linked, and inside the `.wasm`), so
//! the request and answer formats are shared and any difference is core's own behaviour on the
//! two targets. The `.wasm` comes from `BOOKSIDE_PARITY_WASM` when set; otherwise this test
//! builds it with cargo into `target/parity` (a separate target dir, so it never waits on the
//! lock of the cargo that runs this test). Cargo's freshness check makes that a no-op when core
//! has not changed, and means the test never runs a stale `.wasm`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use bookside_core::wire::BookBundle;
use bookside_tests::{book_dir, root};
use serde_json::json;
use wasmer::{Instance, Memory, Module, Store, TypedFunction, imports};

/// The shim's `.wasm`: from `BOOKSIDE_PARITY_WASM`, or freshly built once per test process.
fn wasm_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(path) = std::env::var_os("BOOKSIDE_PARITY_WASM") {
            return PathBuf::from(path);
        }
        let target_dir = root().join("target/parity");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--package", "bookside-parity-shim", "--target", "wasm32-unknown-unknown", "--release"])
            .arg("--target-dir")
            .arg(&target_dir)
            .current_dir(root())
            .status()
            .expect("cannot run cargo to build the parity shim");
        assert!(status.success(), "building the parity shim for wasm32 failed: run `rustup target add wasm32-unknown-unknown`, or set BOOKSIDE_PARITY_WASM");
        target_dir.join("wasm32-unknown-unknown/release/bookside_parity_shim.wasm")
    })
}

/// One instance of the shim under wasmer.
struct Wasm {
    store: Store,
    memory: Memory,
    alloc: TypedFunction<u32, u32>,
    free: TypedFunction<(u32, u32), ()>,
    call: TypedFunction<(u32, u32), u64>,
}

impl Wasm {
    fn load() -> Wasm {
        let path = wasm_path();
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let mut store = Store::default();
        let module = Module::new(&store, bytes).expect("wasmer cannot compile the shim");
        // The shim imports nothing: core does no I/O, and no JS glue is generated.
        let instance = Instance::new(&mut store, &module, &imports! {}).expect("the shim must instantiate with no imports");
        let exports = &instance.exports;
        Wasm {
            memory: exports.get_memory("memory").expect("memory export").clone(),
            alloc: exports.get_typed_function(&store, "bookside_alloc").expect("bookside_alloc export"),
            free: exports.get_typed_function(&store, "bookside_free").expect("bookside_free export"),
            call: exports.get_typed_function(&store, "bookside_call").expect("bookside_call export"),
            store,
        }
    }

    fn call(&mut self, request: &[u8]) -> Vec<u8> {
        let len = u32::try_from(request.len()).expect("a request fits in wasm32 memory");
        let ptr = self.alloc.call(&mut self.store, len).expect("bookside_alloc trapped");
        self.memory.view(&self.store).write(u64::from(ptr), request).expect("request written into wasm memory");
        let packed = self.call.call(&mut self.store, ptr, len).unwrap_or_else(|e| panic!("core trapped inside wasm: {e}"));
        self.free.call(&mut self.store, ptr, len).expect("bookside_free trapped");
        let (out_ptr, out_len) = ((packed >> 32) as u32, packed as u32);
        let mut answer = vec![0; out_len as usize];
        self.memory.view(&self.store).read(u64::from(out_ptr), &mut answer).expect("answer read from wasm memory");
        self.free.call(&mut self.store, out_ptr, out_len).expect("bookside_free trapped");
        answer
    }
}

/// Runs every `(name, request)` natively and in wasm and fails on the first vector that
/// differs, showing the first differing line. Returns the native answers for further checks.
fn check_parity(vectors: &[(&str, serde_json::Value)]) -> Vec<String> {
    let mut wasm = Wasm::load();
    let mut answers = Vec::new();
    for (name, request) in vectors {
        let request = serde_json::to_vec(request).expect("vectors are plain JSON");
        let native = bookside_parity_shim::call(&request);
        let in_wasm = wasm.call(&request);
        let native = String::from_utf8(native).expect("answers are text");
        let in_wasm = String::from_utf8(in_wasm).expect("answers are text");
        assert!(!native.starts_with("request error"), "vector `{name}` is malformed: {native}");
        if native != in_wasm {
            let (n, (a, b)) = native
                .lines()
                .chain(std::iter::repeat("<end>"))
                .zip(in_wasm.lines().chain(std::iter::repeat("<end>")))
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .expect("different texts differ on some line");
            panic!(
                "vector `{name}`: native and wasm32 answers differ at line {}\n  native: {a}\n  wasm32: {b}\n\nnative answer:\n{native}\n\nwasm32 answer:\n{in_wasm}",
                n + 1
            );
        }
        answers.push(native);
    }
    answers
}

/// The real `book/` as the bundle the worker serves: book.toml, quiz.toml and every `.md` or
/// `.toml` file under `src/` and `quiz/`, keyed by `/`-separated relative path.
fn real_book() -> BookBundle {
    fn walk(root: &std::path::Path, dir: &std::path::Path, bundle: &mut BookBundle) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries {
            let path = entry.expect("readable book folder").path();
            if path.is_dir() {
                walk(root, &path, bundle);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("md" | "toml")) {
                let rel = path.strip_prefix(root).expect("below root");
                let key = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
                bundle.files.insert(key, std::fs::read_to_string(&path).expect("book files are UTF-8"));
            }
        }
    }
    let dir = book_dir();
    let mut bundle = BookBundle::default();
    for top in ["book.toml", "quiz.toml"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(top)) {
            bundle.files.insert(top.to_owned(), text);
        }
    }
    walk(&dir, &dir.join("src"), &mut bundle);
    walk(&dir, &dir.join("quiz"), &mut bundle);
    assert!(bundle.files.contains_key("book.toml") && bundle.files.contains_key("src/SUMMARY.md"), "book/ must hold book.toml and src/SUMMARY.md");
    bundle
}

#[test]
fn book_loads_the_same_in_wasm() {
    let bundle = real_book();
    let summary = bundle.get("src/SUMMARY.md").unwrap().to_owned();
    let hand_edited = "# Summary\r\n\r\n[Intro](intro.md)\r\n\r\n- [Ünïcode — title](a/b.md)\r\n    * [Deep](a/deep.md)\r\n-[broken](x.md\r\n";
    let answers = check_parity(&[
        ("book::load(book/)", json!({ "op": "book_load", "bundle": bundle })),
        ("book::load(empty)", json!({ "op": "book_load", "bundle": { "files": {} } })),
        ("parse_summary(book/)", json!({ "op": "parse_summary", "text": summary })),
        ("parse_summary(hand-edited)", json!({ "op": "parse_summary", "text": hand_edited })),
    ]);
    // Parity of two empty answers would prove nothing: the real book must show its chapters.
    let title = std::fs::read_to_string(book_dir().join("book.toml")).unwrap();
    let title = title.lines().find_map(|l| l.strip_prefix("title = ")).expect("book.toml has a title").trim_matches('"');
    assert!(answers[0].contains(title), "book::load lost the title:\n{}", answers[0]);
    assert!(answers[2].contains("introduction.md"), "parse_summary lost a chapter:\n{}", answers[2]);
}

#[test]
fn malformed_requests_are_answered_alike() {
    // The shim's own error path must agree too, or a broken vector could hide as "both failed".
    let mut wasm = Wasm::load();
    let request = br#"{"op":"no_such_op"}"#;
    let native = bookside_parity_shim::call(request);
    assert!(native.starts_with(b"request error"));
    assert_eq!(native, wasm.call(request));
}
