//! Text set aside on disk while a run goes, to be copied into a report file once
//! what comes before it there (counts, a suite's header) is known.
//!
//! An unnamed temporary file (`tempfile::tempfile`: unlinked at once, so nothing is
//! left behind by a run that is interrupted), written through a buffer.

use std::io::{self, BufWriter, Seek, SeekFrom, Write};

/// Text set aside, in the order it was added.
pub(crate) struct Spill {
    file: BufWriter<std::fs::File>,
    /// Bytes added since the last [`Spill::clear`].
    len: u64,
}

impl Spill {
    /// An empty spill in the system's temporary folder.
    pub(crate) fn new() -> io::Result<Spill> {
        Ok(Spill {
            file: BufWriter::with_capacity(64 * 1024, tempfile::tempfile()?),
            len: 0,
        })
    }

    /// Whether nothing has been added.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `text` at the end.
    pub(crate) fn push(&mut self, text: &str) -> io::Result<()> {
        self.file.write_all(text.as_bytes())?;
        self.len += text.len() as u64;
        Ok(())
    }

    /// Copies everything added into `out`, leaving the spill as it is.
    pub(crate) fn copy_into(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.file.flush()?;
        let file = self.file.get_mut();
        file.seek(SeekFrom::Start(0))?;
        let copied = io::copy(&mut io::Read::take(&mut *file, self.len), out)?;
        file.seek(SeekFrom::End(0))?;
        if copied == self.len {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the temporary file of a report was cut short",
            ))
        }
    }

    /// Adds everything added to `other`, which is left as it is.
    pub(crate) fn append(&mut self, other: &mut Spill) -> io::Result<()> {
        other.copy_into(&mut self.file)?;
        self.len += other.len;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Spill;

    #[test]
    fn gives_back_what_was_added_and_appends_another() {
        let mut spill = Spill::new().expect("spill");
        assert!(spill.is_empty());
        spill.push("one,").expect("push");
        spill.push("two").expect("push");
        let mut out = Vec::new();
        spill.copy_into(&mut out).expect("copy");
        spill.push("!").expect("push after a copy");
        out.clear();
        spill.copy_into(&mut out).expect("copy");
        assert_eq!(out, b"one,two!");
        let mut other = Spill::new().expect("spill");
        other.push("<").expect("push");
        other.append(&mut spill).expect("append");
        other.push(">").expect("push");
        out.clear();
        other.copy_into(&mut out).expect("copy");
        assert_eq!(out, b"<one,two!>");
    }
}
