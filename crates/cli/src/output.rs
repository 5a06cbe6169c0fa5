//! Writing results: the rates CSV, streamed, and files that appear whole or not at all.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use tempfile::NamedTempFile;

use crate::input::IdArena;

/// A file written to a temporary file in the target's directory and renamed over the target
/// only by [`AtomicFile::commit`]; dropped uncommitted, it leaves the target untouched.
pub(crate) struct AtomicFile {
    target: PathBuf,
    temp: BufWriter<NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `target`.
    pub(crate) fn create(target: &Path) -> anyhow::Result<Self> {
        let directory = parent_directory(target);
        let mut builder = tempfile::Builder::new();
        builder.prefix(".freshet-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            // Like any new file: 0666 less the umask, not the temporary file's 0600.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder.tempfile_in(directory).with_context(|| {
            format!("{}: cannot create a file in {}", target.display(), directory.display())
        })?;
        Ok(Self { target: target.to_owned(), temp: BufWriter::with_capacity(1 << 16, temp) })
    }

    /// The writer.
    pub(crate) fn writer(&mut self) -> &mut impl Write {
        &mut self.temp
    }

    /// Flushes and renames the file over the target.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        let target = self.target;
        let temp = self.temp.into_inner().map_err(io::IntoInnerError::into_error);
        let temp = temp.with_context(|| format!("{}: cannot write", target.display()))?;
        temp.persist(&target)
            .map_err(|error| error.error)
            .with_context(|| format!("{}: cannot write", target.display()))?;
        Ok(())
    }
}

/// The directory a file `target` goes in (`.` for a bare file name).
fn parent_directory(target: &Path) -> &Path {
    match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Fails early, before any work, if `target` cannot be an output file: its directory does not
/// exist or it is a directory.
pub(crate) fn check_target(target: &Path, option: &str) -> anyhow::Result<()> {
    let directory = parent_directory(target);
    if !directory.is_dir() {
        anyhow::bail!("{option} {}: the directory {} does not exist", target.display(), directory.display());
    }
    if target.is_dir() {
        anyhow::bail!("{option} {}: is a directory", target.display());
    }
    Ok(())
}

/// Writes `id,rate,interval` for every page, in input order: `interval = 1/rate`, empty for
/// pages not fetched (rate 0). Numbers are printed in Rust's shortest round-trip form.
pub(crate) fn write_rates<W: Write>(writer: W, ids: &IdArena, rates: &[f64]) -> io::Result<()> {
    let mut csv = csv::Writer::from_writer(writer);
    csv.write_record(["id", "rate", "interval"])?;
    let mut rate_text = String::new();
    let mut interval_text = String::new();
    for (index, &rate) in rates.iter().enumerate() {
        rate_text.clear();
        interval_text.clear();
        push_number(&mut rate_text, rate);
        if rate > 0.0 {
            push_number(&mut interval_text, 1.0 / rate);
        }
        csv.write_field(ids.get(index))?;
        csv.write_field(&rate_text)?;
        csv.write_field(&interval_text)?;
        csv.write_record(None::<&[u8]>)?;
    }
    csv.flush()
}

/// Appends `value` in shortest round-trip form.
fn push_number(text: &mut String, value: f64) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = write!(text, "{value}");
}

/// Standard output, buffered.
pub(crate) fn stdout() -> BufWriter<io::StdoutLock<'static>> {
    BufWriter::with_capacity(1 << 16, io::stdout().lock())
}
