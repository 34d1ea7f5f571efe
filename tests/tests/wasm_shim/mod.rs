//! The parity shim's `.wasm` under wasmer: finding or building it, loading it, calling it.
//!
//! Shared by the parity test and the benchmark (`benches/core.rs`), so both run the exact same
//! wasm the same way.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use wasmer::{Engine, Instance, Memory, Module, Store, TypedFunction, imports};

/// The workspace root.
fn root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ lives in the workspace").to_path_buf()
}

/// The shim's `.wasm`: from `BOOKSIDE_PARITY_WASM`, or built once per process.
///
/// The build goes to `target/parity`, a separate target dir, so it never waits on the lock of
/// the cargo running this process. Cargo's freshness check makes it a no-op when core has not
/// changed, and means a stale `.wasm` is never used.
pub fn wasm_path() -> &'static PathBuf {
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
        assert!(
            status.success(),
            "building the parity shim for wasm32 failed: run `rustup target add wasm32-unknown-unknown`, or set BOOKSIDE_PARITY_WASM"
        );
        target_dir.join("wasm32-unknown-unknown/release/bookside_parity_shim.wasm")
    })
}

/// One instance of the shim.
pub struct Wasm {
    store: Store,
    memory: Memory,
    alloc: TypedFunction<u32, u32>,
    free: TypedFunction<(u32, u32), ()>,
    call: TypedFunction<(u32, u32), u64>,
    roundtrip: TypedFunction<(u32, u32), u64>,
}

/// The shim compiled once per process: compiling is the slow part (seconds in a debug build),
/// and every test then gets a fresh instance with its own memory from the same module.
fn compiled() -> &'static (Engine, Module) {
    static MODULE: OnceLock<(Engine, Module)> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path = wasm_path();
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let engine = Engine::default();
        let module = Module::new(&engine, bytes).expect("wasmer cannot compile the shim");
        (engine, module)
    })
}

impl Wasm {
    pub fn load() -> Wasm {
        let (engine, module) = compiled();
        let mut store = Store::new(engine.clone());
        // The shim imports nothing: core does no I/O, and no JS glue is generated.
        let instance = Instance::new(&mut store, module, &imports! {}).expect("the shim must instantiate with no imports");
        let exports = &instance.exports;
        let typed = |name: &str| exports.get_typed_function(&store, name).unwrap_or_else(|e| panic!("export {name}: {e}"));
        Wasm {
            memory: exports.get_memory("memory").expect("memory export").clone(),
            alloc: exports.get_typed_function(&store, "bookside_alloc").expect("bookside_alloc export"),
            free: exports.get_typed_function(&store, "bookside_free").expect("bookside_free export"),
            call: typed("bookside_call"),
            roundtrip: typed("bookside_progress_roundtrip"),
            store,
        }
    }

    /// `bookside_parity_shim::call`, inside wasm.
    pub fn call(&mut self, request: &[u8]) -> Vec<u8> {
        let f = self.call.clone();
        self.invoke(&f, request)
    }

    /// `bookside_parity_shim::progress_roundtrip`, inside wasm.
    pub fn progress_roundtrip(&mut self, text: &[u8]) -> Vec<u8> {
        let f = self.roundtrip.clone();
        self.invoke(&f, text)
    }

    fn invoke(&mut self, f: &TypedFunction<(u32, u32), u64>, request: &[u8]) -> Vec<u8> {
        let len = u32::try_from(request.len()).expect("a request fits in wasm32 memory");
        let ptr = self.alloc.call(&mut self.store, len).expect("bookside_alloc trapped");
        self.memory.view(&self.store).write(u64::from(ptr), request).expect("request written into wasm memory");
        let packed = f.call(&mut self.store, ptr, len).unwrap_or_else(|e| panic!("core trapped inside wasm: {e}"));
        self.free.call(&mut self.store, ptr, len).expect("bookside_free trapped");
        let (out_ptr, out_len) = ((packed >> 32) as u32, packed as u32);
        let mut answer = vec![0; out_len as usize];
        self.memory.view(&self.store).read(u64::from(out_ptr), &mut answer).expect("answer read from wasm memory");
        self.free.call(&mut self.store, out_ptr, out_len).expect("bookside_free trapped");
        answer
    }
}
