//! A small deterministic PRNG, identical on wasm32 and native.
