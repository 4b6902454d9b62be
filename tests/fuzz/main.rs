//! The fuzzers (decoders, wire, sandbox), one module each. CI runs this binary a second
//! time with a seed of its own: `FUZZ_SEED=<seed> cargo test --test fuzz`.

#[path = "../fuzz_support/mod.rs"]
mod fuzz_support;

mod fuzz_decoders;
mod fuzz_sandbox;
mod fuzz_wire;
