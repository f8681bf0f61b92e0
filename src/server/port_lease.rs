//! The port a server started over streamable HTTP serves on, held by toolspec for
//! as long as that server's session lives.
//!
//! A port found free and let go of is free for anyone: two servers of one run,
//! started side by side in the run's network namespace, could be handed the same
//! one, and the second's calls would then reach the first server, with another
//! fixture. So the port is found in the namespace the server will listen in, and
//! no port is handed out twice while a session holding it lives.

use std::collections::BTreeSet;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::Mutex;

use super::isolation::inside_namespace;

/// How many ports are tried before giving up: each is refused only when a live
/// session of this run holds it.
const TRIES: usize = 64;

/// The ports held by live sessions of this process.
static HELD: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

/// One port held until dropped.
#[derive(Debug)]
pub(crate) struct PortLease {
    port: u16,
}

impl PortLease {
    /// A local port nothing listens on in `namespace` (toolspec's own when `None`)
    /// and no live session of this run holds.
    pub(super) fn take(namespace: Option<&OwnedFd>) -> io::Result<PortLease> {
        for _ in 0..TRIES {
            let port = unused_port(namespace)?;
            let mut held = HELD
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if held.insert(port) {
                return Ok(PortLease { port });
            }
        }
        Err(io::Error::other(format!(
            "every one of {TRIES} ports the kernel offered is held by another server of this run"
        )))
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for PortLease {
    fn drop(&mut self) {
        HELD.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.port);
    }
}

/// A port the kernel finds free on 127.0.0.1 in `namespace` right now.
fn unused_port(namespace: Option<&OwnedFd>) -> io::Result<u16> {
    let socket = match namespace {
        Some(namespace) => inside_namespace::tcp_socket(namespace, false)?,
        None => tokio::net::TcpSocket::new_v4()?,
    };
    socket.bind((std::net::Ipv4Addr::LOCALHOST, 0).into())?;
    Ok(socket.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_port_is_handed_out_twice_while_held() {
        let leases: Vec<PortLease> = (0..200)
            .map(|_| PortLease::take(None))
            .collect::<io::Result<_>>()
            .expect("ports");
        let distinct: BTreeSet<u16> = leases.iter().map(PortLease::port).collect();
        assert_eq!(distinct.len(), leases.len());
    }
}
