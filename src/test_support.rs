//! Helpers shared by the unit tests of several modules.

/// A reader that hands out one byte per call, so that every line and token of a parser's
/// input straddles buffer boundaries.
pub struct Trickle<'a>(pub &'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// `path` inside `../shared/` beside the repository (specifications, peer tools' results,
/// real fabrics and traces). When it is missing the test skips that part with a note
/// printed past the harness's capture; with `ORCS_REQUIRE_SHARED=1` (CI) it fails.
#[track_caller]
pub fn shared(path: &str) -> Option<String> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join(path);
    if p.exists() {
        return Some(p.to_string_lossy().into_owned());
    }
    let caller = std::panic::Location::caller();
    assert!(
        std::env::var("ORCS_REQUIRE_SHARED").as_deref() != Ok("1"),
        "ORCS_REQUIRE_SHARED=1 but {} is missing (needed at {caller})",
        p.display()
    );
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {caller}: {} is missing",
        p.display()
    );
    None
}

/// `base` with byte edits applied in order, for no-panic properties of parsers: each
/// `(position, byte, kind)` overwrites (kind 0), inserts (1) or removes (2) the byte at
/// `position` modulo the current length; an edit past the end appends.
pub fn mutate(base: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut v = base.to_vec();
    for &(pos, byte, kind) in edits {
        let i = if v.is_empty() { 0 } else { pos % (v.len() + 1) };
        match kind % 3 {
            0 if i < v.len() => v[i] = byte,
            1 => v.insert(i, byte),
            _ if i < v.len() => {
                v.remove(i);
            }
            _ => v.push(byte),
        }
    }
    v
}
