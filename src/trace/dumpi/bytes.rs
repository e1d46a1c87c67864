//! Big-endian reads from a buffered window over any byte source, with the absolute
//! offset of every read known for error messages: the one primitive under the section
//! and stream decoders.

use std::io::{self, Read};

/// The window's size: large enough that refills are rare, small enough to stay in cache.
const WINDOW: usize = 1 << 16;

/// Why a read failed: the source ended, or it could not be read.
#[derive(Debug)]
pub(crate) enum Short {
    /// The source ended inside a value that starts at `offset`.
    End { offset: u64 },
    /// Reading the source failed.
    Io(io::Error),
}

/// A buffered big-endian reader that knows the absolute offset of its next byte.
pub(crate) struct Bytes<R> {
    source: R,
    window: Box<[u8]>,
    pos: usize,
    end: usize,
    /// Absolute offset of `window[0]`.
    base: u64,
}

impl<R: Read> Bytes<R> {
    /// Reads `source`, whose first byte is at absolute offset `base`.
    pub(crate) fn new(source: R, base: u64) -> Self {
        Bytes {
            source,
            window: vec![0; WINDOW].into_boxed_slice(),
            pos: 0,
            end: 0,
            base,
        }
    }

    /// The absolute offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Makes `n` (≤ the window) bytes available at `pos`, or reports where the source
    /// ended.
    #[inline]
    fn fill(&mut self, n: usize) -> Result<(), Short> {
        if self.end - self.pos >= n {
            return Ok(());
        }
        self.refill(n)
    }

    #[cold]
    fn refill(&mut self, n: usize) -> Result<(), Short> {
        let start = self.offset();
        self.window.copy_within(self.pos..self.end, 0);
        self.base += self.pos as u64;
        self.end -= self.pos;
        self.pos = 0;
        while self.end < n {
            match self.source.read(&mut self.window[self.end..]) {
                Ok(0) => return Err(Short::End { offset: start }),
                Ok(got) => self.end += got,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Short::Io(e)),
            }
        }
        Ok(())
    }

    #[inline]
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Short> {
        self.fill(N)?;
        let mut out = [0; N];
        out.copy_from_slice(&self.window[self.pos..self.pos + N]);
        self.pos += N;
        Ok(out)
    }

    /// One byte.
    #[inline]
    pub(crate) fn u8(&mut self) -> Result<u8, Short> {
        Ok(self.take::<1>()?[0])
    }

    /// A big-endian u16.
    #[inline]
    pub(crate) fn u16(&mut self) -> Result<u16, Short> {
        self.take().map(u16::from_be_bytes)
    }

    /// A big-endian u32.
    #[inline]
    pub(crate) fn u32(&mut self) -> Result<u32, Short> {
        self.take().map(u32::from_be_bytes)
    }

    /// A big-endian u64.
    #[inline]
    pub(crate) fn u64(&mut self) -> Result<u64, Short> {
        self.take().map(u64::from_be_bytes)
    }

    /// Appends `n` bytes to `out`, a window at a time, so that a count larger than what
    /// the source holds fails at the end of the source instead of reserving it first.
    pub(crate) fn bytes_into(&mut self, n: usize, out: &mut Vec<u8>) -> Result<(), Short> {
        let start = self.offset();
        let mut left = n;
        while left > 0 {
            let chunk = left.min(WINDOW);
            self.fill(chunk).map_err(|e| match e {
                Short::End { .. } => Short::End { offset: start },
                other => other,
            })?;
            out.extend_from_slice(&self.window[self.pos..self.pos + chunk]);
            self.pos += chunk;
            left -= chunk;
        }
        Ok(())
    }

    /// Skips `n` bytes.
    pub(crate) fn skip(&mut self, mut n: u64) -> Result<(), Short> {
        let start = self.offset();
        while n > 0 {
            let chunk = n.min(WINDOW as u64) as usize;
            self.fill(chunk).map_err(|e| match e {
                Short::End { .. } => Short::End { offset: start },
                other => other,
            })?;
            self.pos += chunk;
            n -= chunk as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_big_endian_values_across_refills_and_reports_the_offset_of_a_short_value() {
        let mut data = vec![0u8; WINDOW - 3];
        data.extend_from_slice(&[0x12, 0x34, 0x56, 0x78, 0x9a]);
        let mut r = Bytes::new(&data[..], 100);
        r.skip((WINDOW - 3) as u64).unwrap();
        assert_eq!(r.offset(), 100 + (WINDOW - 3) as u64);
        assert_eq!(r.u32().unwrap(), 0x1234_5678);
        match r.u16() {
            Err(Short::End { offset }) => assert_eq!(offset, 100 + WINDOW as u64 + 1),
            other => panic!("expected the end, got {other:?}"),
        }
    }
}
