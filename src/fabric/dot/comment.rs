//! Splitting a `comment` value into interned tokens, from a bitmap of its separators:
//! the routing comments of a fabric are nearly all of its text, so this is most of the
//! time to read one.

use super::symbols::{pack_window, SymbolTable};
use super::Comment;

/// Bytes of one [`separator_mask`]: a token shorter than this is packed from one load.
const WINDOW: usize = 16;

/// The bytes that separate comment tokens.
const SEPARATORS: [u8; 5] = *b", \t\n\r";

/// Bit `k` set when byte `k` of `window` is a separator: five byte comparisons of the
/// whole window and one mask move. SSE2 is part of every x86-64 processor.
#[cfg(target_arch = "x86_64")]
#[inline]
fn separator_mask(window: &[u8; WINDOW]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is enabled on every x86-64 target, and the load reads the 16 bytes
    // of `window` (unaligned loads are allowed).
    unsafe {
        let v = _mm_loadu_si128(window.as_ptr().cast());
        let is = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        let [a, b, c, d, e] = SEPARATORS;
        let either = _mm_or_si128(
            _mm_or_si128(is(a), is(b)),
            _mm_or_si128(_mm_or_si128(is(c), is(d)), is(e)),
        );
        _mm_movemask_epi8(either) as u32
    }
}

/// Bit `k` set when byte `k` of `window` is a separator, on processors without SSE2.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn separator_mask(window: &[u8; WINDOW]) -> u32 {
    separator_mask_swar(window)
}

/// [`separator_mask`] in portable code: each half of the window as one `u64`, and per
/// separator an exact test for zero bytes of the half XOR the separator in every byte
/// (adding 0x7f to the low seven bits of a byte sets its high bit unless they are all
/// zero, and never carries into the next byte).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn separator_mask_swar(window: &[u8; WINDOW]) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let half = |word: u64| {
        let mut marks = 0;
        for c in SEPARATORS {
            let x = word ^ (ONES * u64::from(c));
            marks |= !(((x & !HIGHS) + !HIGHS) | x) & HIGHS;
        }
        // The high bit of byte k to bit k.
        ((marks >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    };
    let (lo, hi) = window.split_at(8);
    half(u64::from_le_bytes(lo.try_into().expect("8 bytes")))
        | half(u64::from_le_bytes(hi.try_into().expect("8 bytes"))) << 8
}

/// Splits `comment` values into interned tokens, keeping its scratch space from one
/// comment to the next.
#[derive(Debug, Default)]
pub(super) struct CommentTokenizer {
    /// Bit `k % 64` of word `k / 64` set when byte `k` of the comment is a separator;
    /// the bytes past the end count as separators.
    separators: Vec<u64>,
}

impl CommentTokenizer {
    /// Splits a `comment` value into interned tokens appended to `tokens`.
    ///
    /// Tokens are the maximal runs of bytes other than `,`, space, tab, CR and LF. The
    /// separators are marked in a bitmap first, sixty-four bytes to a word, and the
    /// tokens' starts and ends come from the words by bit operations, so that no token
    /// waits for the one before it: a loop that found each token's end from a mask
    /// loaded at its start was slower than a byte loop, every token waiting for the
    /// load and the mask of the one before. A token shorter than sixteen bytes is
    /// packed for the symbol table from one load.
    pub(super) fn tokenize(
        &mut self,
        symbols: &mut SymbolTable,
        tokens: &mut Vec<u32>,
        value: &[u8],
    ) -> Result<Comment, &'static str> {
        if value == b"*" {
            return Ok(Comment::All);
        }
        let text = std::str::from_utf8(value).map_err(|_| "invalid UTF-8 in `comment` value")?;
        let start = u32::try_from(tokens.len()).map_err(|_| "too many comment tokens")?;
        self.mark_separators(text.as_bytes());
        let bytes = text.as_bytes();
        let mut full = false;
        let mut intern = |start: usize, end: usize| {
            let len = end - start;
            let known = match bytes.get(start..start + WINDOW) {
                Some(window) if len < WINDOW => {
                    let key = pack_window(window.try_into().expect("WINDOW bytes"), len);
                    symbols.get_packed(key)
                }
                _ => None,
            };
            // Separators are ASCII, so every token lies on character boundaries.
            match known.or_else(|| symbols.try_intern(text.get(start..end)?)) {
                Some(id) => tokens.push(id),
                None => full = true,
            }
        };
        // The start of a token still open at the end of the last word.
        let mut open = None;
        // Whether the last byte of the last word is a token's.
        let mut carry = 0;
        for (w, &separators) in self.separators.iter().enumerate() {
            let base = w * 64;
            let inside = !separators;
            let after_inside = inside << 1 | carry;
            carry = inside >> 63;
            // Token bytes after a separator, and separators after a token byte: they
            // alternate, a start first.
            let mut starts = inside & !after_inside;
            let mut ends = separators & after_inside;
            if let Some(start) = open {
                if ends == 0 {
                    continue;
                }
                intern(start, base + ends.trailing_zeros() as usize);
                ends &= ends - 1;
                open = None;
            }
            while starts != 0 {
                let start = base + starts.trailing_zeros() as usize;
                starts &= starts - 1;
                if ends == 0 {
                    open = Some(start);
                    break;
                }
                intern(start, base + ends.trailing_zeros() as usize);
                ends &= ends - 1;
            }
        }
        // Only a text of whole words can end inside a token.
        if let Some(start) = open {
            intern(start, bytes.len());
        }
        if full {
            return Err("too many symbols");
        }
        let end = u32::try_from(tokens.len()).map_err(|_| "too many comment tokens")?;
        Ok(Comment::Tokens { start, end })
    }

    /// Fills `separators` with the bitmap of `bytes`.
    fn mark_separators(&mut self, bytes: &[u8]) {
        self.separators.clear();
        let mut blocks = bytes.chunks_exact(64);
        for block in &mut blocks {
            self.separators
                .push(block_mask(block.try_into().expect("64 bytes")));
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            // Padded with separators, so that a last token ends inside the word.
            let mut block = [b' '; 64];
            block[..rest.len()].copy_from_slice(rest);
            self.separators.push(block_mask(&block));
        }
    }
}

/// The separators of a block of 64 bytes, bit `k` for byte `k`.
#[inline]
fn block_mask(block: &[u8; 64]) -> u64 {
    let mut mask = 0;
    for (k, window) in block.chunks_exact(WINDOW).enumerate() {
        let window: &[u8; WINDOW] = window.try_into().expect("a slice of WINDOW bytes");
        mask |= u64::from(separator_mask(window)) << (WINDOW * k);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// True for comment token separators, written out: the oracle of the masks.
    fn is_separator(c: u8) -> bool {
        matches!(c, b',' | b' ' | b'\t' | b'\n' | b'\r')
    }

    /// The tokens of `value` by `str::split`, interned in a fresh table: the oracle.
    fn split_tokens(value: &str) -> (Vec<String>, SymbolTable) {
        let mut symbols = SymbolTable::new();
        let names: Vec<String> = value
            .split(|c: char| c.is_ascii() && is_separator(c as u8))
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        for name in &names {
            symbols.intern(name);
        }
        (names, symbols)
    }

    /// Tokenizes `value` in a fresh table; the tokens' names, and the table.
    fn tokenized(value: &str) -> (Vec<String>, SymbolTable) {
        let mut symbols = SymbolTable::new();
        let mut tokens = Vec::new();
        let comment = CommentTokenizer::default()
            .tokenize(&mut symbols, &mut tokens, value.as_bytes())
            .unwrap();
        assert_eq!(
            comment,
            Comment::Tokens {
                start: 0,
                end: tokens.len() as u32
            }
        );
        let names = tokens
            .iter()
            .map(|&t| symbols.name(t).to_string())
            .collect();
        (names, symbols)
    }

    #[test]
    fn tokens_of_every_length_around_the_window() {
        // Tokens from 1 to 40 bytes, at every offset from the window's start, with
        // every separator, and a token ending exactly at the end of the text.
        for len in 1..40 {
            for offset in 0..WINDOW + 2 {
                for sep in [",", " ", "\t", "\n", "\r", ", "] {
                    let token: String = (0..len).map(|k| (b'a' + (k % 26) as u8) as char).collect();
                    let value = format!("{}{token}{sep}H1{sep}{token}", sep.repeat(offset));
                    let (names, _) = tokenized(&value);
                    assert_eq!(names, [token.as_str(), "H1", token.as_str()], "{value:?}");
                }
            }
        }
    }

    #[test]
    fn tokens_across_words_and_texts_of_whole_words() {
        // Texts of 63 to 129 bytes: a token ending at the end of a word, or running
        // through one or two whole words to the end of the text.
        for total in 63..=129 {
            for cut in [1, 2, 5, 62, 63, 64, 65, 66] {
                if cut >= total {
                    continue;
                }
                let head: String = (0..cut - 1)
                    .map(|k| (b'a' + (k % 26) as u8) as char)
                    .collect();
                let tail: String = (0..total - cut)
                    .map(|k| (b'A' + (k % 26) as u8) as char)
                    .collect();
                let value = format!("{head},{tail}");
                assert_eq!(value.len(), total);
                let expected: Vec<&str> = [head.as_str(), tail.as_str()]
                    .into_iter()
                    .filter(|t| !t.is_empty())
                    .collect();
                assert_eq!(tokenized(&value).0, expected, "{value:?}");
            }
        }
        // A text of only separators, across words.
        assert!(tokenized(&", ".repeat(100)).0.is_empty());
    }

    #[test]
    fn a_star_is_every_destination_and_bad_utf8_is_refused() {
        let mut symbols = SymbolTable::new();
        let mut tokens = Vec::new();
        let mut tokenizer = CommentTokenizer::default();
        assert_eq!(
            tokenizer.tokenize(&mut symbols, &mut tokens, b"*"),
            Ok(Comment::All)
        );
        assert_eq!(
            tokenizer.tokenize(&mut symbols, &mut tokens, b"H1, \xff"),
            Err("invalid UTF-8 in `comment` value")
        );
        // A star among other tokens is a token like any other.
        let (names, _) = tokenized("*, H1");
        assert_eq!(names, ["*", "H1"]);
    }

    /// The mask byte by byte: the oracle of both forms.
    fn mask_by_bytes(window: &[u8; WINDOW]) -> u32 {
        (0..WINDOW)
            .filter(|&k| is_separator(window[k]))
            .map(|k| 1 << k)
            .sum()
    }

    #[test]
    fn the_separator_mask_marks_exactly_the_separators() {
        // Every byte value at every place, beside every other byte value: a zero-byte
        // test that borrows or carries would mark a neighbour of a separator.
        for place in 0..WINDOW {
            for c in 0..=255u8 {
                for next in 0..=255u8 {
                    let mut window = [b'x'; WINDOW];
                    window[place] = c;
                    if let Some(slot) = window.get_mut(place + 1) {
                        *slot = next;
                    }
                    let expected = mask_by_bytes(&window);
                    assert_eq!(separator_mask(&window), expected, "{window:?}");
                    assert_eq!(separator_mask_swar(&window), expected, "{window:?}");
                }
            }
        }
    }

    proptest! {
        /// Any text of names and separators (with multi-byte characters) gives the
        /// tokens of `str::split`, with the same ids as interning them one by one.
        #[test]
        fn tokens_are_those_of_str_split(value in "([ ,\t\r\n]{0,3}[a-zA-Z0-9_é€*]{0,20}){0,12}") {
            let (names, symbols) = tokenized(&value);
            let (expected, oracle) = split_tokens(&value);
            prop_assert_eq!(&names, &expected);
            prop_assert_eq!(symbols.len(), oracle.len());
            for name in &expected {
                prop_assert_eq!(symbols.get(name), oracle.get(name));
            }
        }
    }
}
