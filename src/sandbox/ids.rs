//! Object-id style identifiers (24 lowercase hex chars) and small deterministic hashing.

/// A new 24-hex id: 4 bytes of Unix seconds (so ids sort roughly by creation) + 8 random bytes.
pub(crate) fn new_object_id() -> String {
    let secs = chrono::Utc::now().timestamp().max(0) as u32;
    let random = uuid::Uuid::new_v4();
    let mut out = format!("{secs:08x}");
    for byte in &random.as_bytes()[..8] {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

pub(crate) fn is_object_id(value: &str) -> bool {
    value.len() == 24
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A fresh random API key; the prefix lets a human recognise sandbox keys.
pub(crate) fn new_api_key() -> String {
    format!("fwsb_{}", uuid::Uuid::new_v4().simple())
}

/// FNV-1a: stable across platforms and Rust versions (unlike `DefaultHasher`), so renders are
/// reproducible from their inputs.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Small deterministic PRNG (SplitMix64) for renders and failure injection.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn from_entropy() -> Self {
        let bytes = uuid::Uuid::new_v4().into_bytes();
        let mut seed = [0u8; 8];
        seed.copy_from_slice(&bytes[..8]);
        Self(u64::from_le_bytes(seed))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(crate) fn range_f32(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.next_f64() as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_ids_are_24_hex() {
        let id = new_object_id();
        assert!(is_object_id(&id), "{id}");
        assert!(!is_object_id("abc"));
        assert!(!is_object_id("ABCDEF0123456789abcdef01"));
    }
}
