//! How the supervisor starts the server without copying toolspec's memory: the exec
//! of the server is prepared in toolspec before the spawn (the paths to try, argv,
//! the environment, a stack), and run in the supervisor by a child that shares the
//! supervisor's memory until it execs (`clone` with `CLONE_VM | CLONE_VFORK`, as
//! `posix_spawn` does).
//!
//! Why: the supervisor is a `fork` of toolspec, and a second `fork` for the server
//! copied the page tables of toolspec's whole address space once more. On a 2-core
//! machine that copy cost about 0.4 ms of CPU per scenario for a 20 MiB process,
//! most of what the harness added to a server's own lifecycle
//! (`cargo bench --features bench --bench overhead -- bare_lifecycle`).
//!
//! Between `fork` and `exec` nothing may allocate or lock, so everything the child
//! needs is built here, before the spawn, and the child only reads it.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Where `execvp` looks when the environment has no `PATH` (glibc's default).
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// The shell `execvp` runs a file with that has no `#!` line.
const SHELL: &std::ffi::CStr = c"/bin/sh";

/// Bytes of stack for the child between `clone` and `execve`: it makes a few system
/// calls and nothing else.
const CHILD_STACK_BYTES: usize = 64 * 1024;

/// Everything the exec of a server needs, ready before the fork.
pub(super) struct ServerExec {
    /// The paths to try in turn, as `execvp` would: the program itself when it has a
    /// `/` in it, else the program in each folder of `PATH`.
    candidates: Vec<CString>,
    /// The strings `argv` and `envp` point into (argv's first, then the
    /// environment's); kept alive with them.
    _strings: Vec<CString>,
    /// How many of `_strings` are argv's.
    argc: usize,
    /// Null-terminated arrays of pointers into `_strings`.
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    /// `/bin/sh`, a slot for the path found, then `argv` after the program: for a
    /// file without a `#!` line, which `execvp` hands to the shell (`ENOEXEC`).
    shell_argv: Vec<*const libc::c_char>,
    /// The child's stack; it runs on it only until `execve`.
    stack: Vec<u8>,
}

// SAFETY: the raw pointers point into `_strings`, which the value owns and never
// changes after it is built; it moves into the spawn's `pre_exec` hook whole.
unsafe impl Send for ServerExec {}
// SAFETY: as above. Nothing is written through the pointers, and the one slot the
// child fills in (`shell_argv[1]`) is written in the supervisor's copy of memory,
// after the fork.
unsafe impl Sync for ServerExec {}

impl ServerExec {
    /// The exec of `program` with `args`, in `env` (a later pair wins), laid over
    /// toolspec's whole environment when `inherit` (no isolation). A NUL inside any
    /// of them is refused here, as std's spawn refuses it.
    pub(super) fn new<'a>(
        program: &Path,
        args: &[String],
        inherit: bool,
        env: impl IntoIterator<Item = (&'a OsStr, &'a OsStr)>,
    ) -> io::Result<ServerExec> {
        let mut environment: Vec<(OsString, OsString)> = if inherit {
            std::env::vars_os().collect()
        } else {
            Vec::new()
        };
        for (name, value) in env {
            environment.retain(|(existing, _)| existing != name);
            environment.push((name.to_owned(), value.to_owned()));
        }
        let search_path = environment
            .iter()
            .find(|(name, _)| name == "PATH")
            .map(|(_, value)| value.clone())
            .unwrap_or_else(|| OsString::from(DEFAULT_PATH));
        let candidates = candidates(program.as_os_str(), &search_path)?;
        let mut strings = Vec::with_capacity(1 + args.len() + environment.len());
        strings.push(c_string(program.as_os_str().as_bytes())?);
        for arg in args {
            strings.push(c_string(arg.as_bytes())?);
        }
        let argc = strings.len();
        for (name, value) in &environment {
            let mut pair = name.as_bytes().to_vec();
            pair.push(b'=');
            pair.extend_from_slice(value.as_bytes());
            strings.push(c_string(&pair)?);
        }
        Ok(ServerExec::from_parts(candidates, strings, argc))
    }

    /// The exec of the paths `candidates`, with `strings` as argv (the first
    /// `argc`) and the environment (the rest): what [`ServerExec::parts`] gave,
    /// rebuilt in the spawner's process.
    pub(super) fn from_parts(
        candidates: Vec<CString>,
        strings: Vec<CString>,
        argc: usize,
    ) -> ServerExec {
        let argc = argc.min(strings.len());
        let pointers = |range: &[CString]| {
            range
                .iter()
                .map(|s| s.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect::<Vec<_>>()
        };
        let argv = pointers(&strings[..argc]);
        let envp = pointers(&strings[argc..]);
        let shell_argv = [SHELL.as_ptr(), std::ptr::null()]
            .into_iter()
            .chain(argv.iter().skip(1).copied())
            .collect();
        ServerExec {
            candidates,
            _strings: strings,
            argc,
            argv,
            envp,
            shell_argv,
            stack: vec![0; CHILD_STACK_BYTES],
        }
    }

    /// The paths to try, the argv strings and the environment's, to hand the exec
    /// to another process.
    pub(super) fn parts(&self) -> (&[CString], &[CString], &[CString]) {
        let (argv, envp) = self._strings.split_at(self.argc);
        (&self.candidates, argv, envp)
    }

    /// Starts the server as a child of the calling process and returns its pid once
    /// it has exec'd, or the error its exec ended with (after reaping it).
    ///
    /// # Safety
    /// Only between `fork` and `exec` (in the supervisor), where nothing else runs:
    /// the child shares this process's memory until its `execve`.
    pub(super) unsafe fn start(&mut self) -> io::Result<libc::pid_t> {
        let mut failure = ExecFailure {
            exec: self as *mut ServerExec,
            errno: 0,
        };
        let top = self.stack.as_mut_ptr().add(self.stack.len());
        // The ABI wants the stack pointer 16-byte aligned.
        let top = top.sub(top as usize % 16);
        let pid = libc::clone(
            exec_in_child,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (&mut failure as *mut ExecFailure).cast(),
        );
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        // CLONE_VFORK: the child has exec'd or exited by now, and wrote any error
        // behind the compiler's back.
        let errno = std::ptr::read_volatile(&failure.errno);
        if errno != 0 {
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            return Err(io::Error::from_raw_os_error(errno));
        }
        Ok(pid)
    }
}

/// What the child reads (the exec) and writes (why it failed) in the memory it
/// shares with the supervisor.
struct ExecFailure {
    exec: *mut ServerExec,
    errno: libc::c_int,
}

/// The child: tries each candidate path as `execvp` does, passing over the ones that
/// are missing or not allowed and handing a file without `#!` to `/bin/sh`, and
/// reports the error that stopped it.
extern "C" fn exec_in_child(shared: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `shared` is the `ExecFailure` on the supervisor's stack, which is
    // suspended (CLONE_VFORK) until this child execs or exits; `exec` points to a
    // live `ServerExec` whose arrays are null-terminated.
    unsafe {
        let failure = &mut *shared.cast::<ExecFailure>();
        let exec = &mut *failure.exec;
        let mut reason = libc::ENOENT;
        let mut denied = false;
        for path in &exec.candidates {
            libc::execve(path.as_ptr(), exec.argv.as_ptr(), exec.envp.as_ptr());
            let mut errno = *libc::__errno_location();
            if errno == libc::ENOEXEC {
                // No `#!` line: the shell reads it, as execvp has it do.
                if let Some(slot) = exec.shell_argv.get_mut(1) {
                    *slot = path.as_ptr();
                }
                libc::execve(SHELL.as_ptr(), exec.shell_argv.as_ptr(), exec.envp.as_ptr());
                errno = *libc::__errno_location();
            }
            match errno {
                libc::ENOENT | libc::ENOTDIR => {}
                libc::EACCES => denied = true,
                other => {
                    reason = other;
                    denied = false;
                    break;
                }
            }
        }
        failure.errno = if denied { libc::EACCES } else { reason };
        libc::_exit(127)
    }
}

/// The paths `execvp` would try for `program` with `search_path`.
fn candidates(program: &OsStr, search_path: &OsStr) -> io::Result<Vec<CString>> {
    let bytes = program.as_bytes();
    if bytes.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the server's program is empty",
        ));
    }
    if bytes.contains(&b'/') {
        return Ok(vec![c_string(bytes)?]);
    }
    search_path
        .as_bytes()
        .split(|&b| b == b':')
        .map(|folder| {
            // An empty entry is the current folder, as in execvp.
            let mut path = if folder.is_empty() {
                b".".to_vec()
            } else {
                folder.to_vec()
            };
            path.push(b'/');
            path.extend_from_slice(bytes);
            c_string(&path)
        })
        .collect()
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "nul byte found in the server's command line or environment",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_name_is_looked_for_in_each_folder_of_the_path_and_a_path_is_taken_as_it_is() {
        let found = candidates(OsStr::new("node"), OsStr::new("/a::/b")).expect("candidates");
        let found: Vec<_> = found.iter().map(|c| c.to_str().expect("utf-8")).collect();
        assert_eq!(found, ["/a/node", "./node", "/b/node"]);
        let found = candidates(OsStr::new("./run.sh"), OsStr::new("/a")).expect("candidates");
        assert_eq!(found[0].to_str(), Ok("./run.sh"));
        assert!(candidates(OsStr::new(""), OsStr::new("/a")).is_err());
    }

    #[test]
    fn the_environment_is_toolspecs_with_the_servers_laid_over_it() {
        let exec = ServerExec::new(
            Path::new("prog"),
            &["one".to_string()],
            true,
            [(OsStr::new("PATH"), OsStr::new("/only/here"))],
        )
        .expect("exec");
        assert_eq!(exec.candidates[0].to_str(), Ok("/only/here/prog"));
        assert_eq!(exec.argv.len(), 3, "program, one argument, null");
        assert!(exec.argv[2].is_null() && exec.envp.last().is_some_and(|p| p.is_null()));
        let paths = exec
            ._strings
            .iter()
            .filter(|s| s.as_bytes().starts_with(b"PATH="))
            .count();
        assert_eq!(paths, 1, "the server's PATH replaces toolspec's");
        let only = ServerExec::new(
            Path::new("/bin/prog"),
            &[],
            false,
            [(OsStr::new("A"), OsStr::new("b"))],
        )
        .expect("exec");
        let (_, _, envp) = only.parts();
        assert_eq!(
            envp,
            [c"A=b"],
            "nothing of toolspec's environment without inherit"
        );
        let refused = ServerExec::new(Path::new("prog"), &["a\0b".to_string()], true, []);
        assert!(refused.is_err());
    }
}
