//! Laying out and drawing a map with Graphviz (`dot` or `neato`), run as a program: it
//! reads the map as dot on standard input and writes the picture on standard output.

use crate::viz::draw::ImageFormat;
use crate::viz::error::VizError;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The first executable called `name` on the PATH, if Graphviz is installed.
pub fn find_program(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Lays out and draws the dot document `source` with `program` as `format` bytes.
/// The input is written from another thread so that a large picture on Graphviz's
/// output cannot block it.
pub fn render(program: &Path, source: &str, format: ImageFormat) -> Result<Vec<u8>, VizError> {
    let kind = match format {
        ImageFormat::Svg => "-Tsvg",
        ImageFormat::Png => "-Tpng",
    };
    let mut child = Command::new(program)
        .arg(kind)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| VizError::Spawn {
            program: program.to_path_buf(),
            source,
        })?;
    let mut stdin = child.stdin.take().ok_or(VizError::Stdin)?;
    let text = source.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let output = child.wait_with_output()?;
    let _ = writer.join();
    if !output.status.success() {
        return Err(VizError::Failed {
            program: program.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_named() {
        assert!(find_program("orcs-no-such-graphviz-program").is_none());
        let e = render(Path::new("/nonexistent/dot"), "graph {}", ImageFormat::Svg).unwrap_err();
        assert!(
            e.to_string().starts_with("cannot run /nonexistent/dot"),
            "{e}"
        );
    }
}
