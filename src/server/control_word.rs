//! One 32-bit word, in this machine's byte order, over a socket: how a supervisor
//! forked by the spawner says whether its server started (0, or the exec's
//! `errno`), and how the spawner answers a request (the supervisor's pid, or a
//! negative `errno`).
//!
//! Sending happens in forked children, between `fork` and `exec` or in place of
//! it, so it makes one system call and allocates nothing.

use std::os::fd::RawFd;

/// Sends `word` on socket `fd`. A peer that has gone is not an error here: the
/// reader finds the socket ended instead.
///
/// # Safety
/// `fd` is an open descriptor. Async-signal-safe: one `send`, no allocation.
pub(super) unsafe fn send_word(fd: RawFd, word: i32) {
    let bytes = word.to_ne_bytes();
    libc::send(fd, bytes.as_ptr().cast(), bytes.len(), libc::MSG_NOSIGNAL);
}

/// Waits for one word on socket `fd`; `None` when the socket ends (or fails)
/// before all four bytes came.
pub(super) fn receive_word(fd: RawFd) -> Option<i32> {
    let mut bytes = [0u8; 4];
    // SAFETY: a blocking read of at most four bytes into `bytes`.
    let read = unsafe {
        libc::recv(
            fd,
            bytes.as_mut_ptr().cast(),
            bytes.len(),
            libc::MSG_WAITALL,
        )
    };
    (read == 4).then(|| i32::from_ne_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    #[test]
    fn a_word_sent_is_the_word_received_and_an_ended_socket_is_none() {
        let mut ends = [0; 2];
        // SAFETY: socketpair writes two descriptors into `ends`, which are then owned.
        let (ours, theirs) = unsafe {
            assert_eq!(
                libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, ends.as_mut_ptr()),
                0
            );
            (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1]))
        };
        for word in [0, -libc::ENOENT, 4_194_304] {
            // SAFETY: `theirs` is open.
            unsafe { send_word(theirs.as_raw_fd(), word) };
            assert_eq!(receive_word(ours.as_raw_fd()), Some(word));
        }
        drop(theirs);
        assert_eq!(receive_word(ours.as_raw_fd()), None);
    }
}
