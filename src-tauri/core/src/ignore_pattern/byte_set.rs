//! A set of bytes, 256 bits: a glob's bracket class, and the bytes a path
//! holds (so a rule that needs a byte the path lacks is refused at once).

/// A set of bytes.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ByteSet(pub(super) [u64; 4]);

impl ByteSet {
    pub(super) fn insert(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }

    pub(super) fn has(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }

    pub(super) fn complement(self) -> ByteSet {
        ByteSet(self.0.map(|w| !w))
    }

    /// The bytes of `text`.
    pub(crate) fn of(text: &[u8]) -> ByteSet {
        let mut s = ByteSet::default();
        for &b in text {
            s.insert(b);
        }
        s
    }

    pub(super) fn within(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a & !b == 0)
    }
}
