//! Sockets made inside a server's own network namespace, for toolspec to reach a
//! server over HTTP that has no network but its own loopback.
//!
//! A socket belongs to the namespace of the thread that made it, for its whole
//! life. So the calling thread steps into the server's namespace, makes the socket,
//! and steps back at once; nothing else runs on the thread meanwhile (no `await`),
//! and the socket is then connected as any other.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::OnceLock;

use tokio::net::TcpSocket;

/// toolspec's own network namespace, opened once, to step back into.
fn own_namespace() -> io::Result<&'static OwnedFd> {
    static OWN: OnceLock<io::Result<OwnedFd>> = OnceLock::new();
    OWN.get_or_init(|| std::fs::File::open("/proc/thread-self/ns/net").map(OwnedFd::from))
        .as_ref()
        .map_err(|why| io::Error::other(format!("cannot open toolspec's network namespace: {why}")))
}

/// A TCP socket (IPv6 when `v6`) made inside the namespace `namespace`.
pub(in crate::server) fn tcp_socket(namespace: &OwnedFd, v6: bool) -> io::Result<TcpSocket> {
    let own = own_namespace()?;
    enter(namespace)?;
    let made = if v6 {
        TcpSocket::new_v6()
    } else {
        TcpSocket::new_v4()
    };
    // Back before anything else can run on this thread; if that fails, this thread
    // would make every later socket in the server's namespace, so it must not go on.
    if let Err(e) = enter(own) {
        panic!("cannot return to toolspec's own network namespace: {e}");
    }
    made
}

fn enter(namespace: &OwnedFd) -> io::Result<()> {
    // SAFETY: setns with a descriptor this process holds open; it changes only the
    // calling thread's network namespace.
    if unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
