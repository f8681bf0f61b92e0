//! The server process: started under a supervisor of its own (`supervisor.rs`) in
//! its own process group, and ended with everything it started.
//!
//! The supervisor holds the server's whole process tree, detached daemons included,
//! and ends all of it when the server exits or when toolspec ends its control
//! socket. Every control socket is listed here, so that an interrupted run ends them
//! all (and waits for the supervisors to finish) before it exits; if toolspec dies
//! without that, the kernel closes the sockets and the supervisors do the same.
//!
//! A supervisor says on its socket that it has ended its server's tree. One that
//! exits without saying so was killed (by the server, most likely), and its
//! scenario is told its containment broke; what escaped was reparented to toolspec,
//! which kills it here when it adopts escaped processes (`escapes.rs`). Every child
//! toolspec starts itself is listed here until it is reaped, so that only what it
//! did not start is taken for an escaped process.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::process::Command;

use super::control_word::receive_word;
use super::escapes;
use super::isolation::confinement::{Confinement, NetworkCut};
use super::isolation::layers::{self, Isolation, Prepared};
use super::isolation::resource_limits::{LimitHit, Limits, ServerCgroup};
use super::proc_stat;
use super::server_exec::ServerExec;
use super::spawner;
use super::supervisor::{become_supervisor, FINISHED, STARTED};
use super::supervisor_child::{reap_left_running, ServerPipes, SupervisorChild};
use crate::fixture::{Places, Scratch};
use crate::scenario::MachinePlaces;

pub(super) struct ServerProcess {
    /// The supervisor, which exits as the server does (same code or signal).
    child: SupervisorChild,
    /// toolspec's ends of the server's stdio, until the session takes them.
    pipes: Option<ServerPipes>,
    /// The supervisor's pid, which is also the process group the server runs in.
    pid: Option<i32>,
    /// This server's entry in [`SUPERVISED`]; `None` once its containment is ended.
    supervised: Option<u64>,
    /// toolspec's end of the control socket.
    control: Arc<OwnedFd>,
    /// Under isolation without a view, the server's `TMPDIR` and private home,
    /// removed after the server.
    _scratch: Option<Scratch>,
    /// Under isolation, the server's cgroup: read for a limit hit once the server
    /// has ended, removed after it.
    cgroup: Option<ServerCgroup>,
    /// The server's limits, to name the file size one when it dies of `SIGXFSZ`.
    limits: Limits,
    /// The server's own network namespace, when it has one and is reached over
    /// HTTP: toolspec connects from inside it.
    namespace: Option<Arc<OwnedFd>>,
    /// The folders it was given that another machine will not have.
    places: MachinePlaces,
}

/// The server's `TMPDIR` and `HOME` as it was given them: the target's `env:`
/// over isolation's environment over toolspec's own (when it is inherited); a
/// program with no `TMPDIR` uses `/tmp`.
fn places_given(
    isolation: &[(OsString, OsString)],
    inherit: bool,
    target: &BTreeMap<String, String>,
) -> MachinePlaces {
    let given = |name: &str| -> Option<String> {
        if let Some(value) = target.get(name) {
            return Some(value.clone());
        }
        if let Some((_, value)) = isolation.iter().rev().find(|(key, _)| key == name) {
            return Some(value.to_string_lossy().into_owned());
        }
        inherit
            .then(|| std::env::var_os(name))
            .flatten()
            .map(|value| value.to_string_lossy().into_owned())
    };
    let scratch = given("TMPDIR").unwrap_or_else(|| "/tmp".to_string());
    MachinePlaces::new(
        Some(&scratch),
        given("HOME").as_deref(),
        Some(&MachinePlaces::toolspec_tmp()),
    )
}

impl ServerProcess {
    /// Starts `program` in `cwd` (the fixture root), isolated as `isolation` says
    /// (`isolation.rs`); `port` is the one it serves on over HTTP.
    pub(super) fn spawn(
        program: &Path,
        argv: &[String],
        places: Places<'_>,
        env: &BTreeMap<String, String>,
        isolation: &Isolation,
        port: Option<u16>,
    ) -> std::io::Result<Self> {
        if isolation.enabled {
            // The probe forks a child: listed as toolspec's own while it runs.
            let _held = supervised();
            layers::probe();
        }
        let prepared = if isolation.enabled {
            let path = env
                .get("PATH")
                .map(std::ffi::OsString::from)
                .or_else(|| std::env::var_os("PATH"));
            isolation.prepare(places, program, path.as_deref(), port)?
        } else {
            Prepared::none()
        };
        let Prepared {
            confinement,
            environment,
            inherit,
            cgroup,
            scratch,
        } = prepared;
        let given = places_given(&environment, inherit, env);
        let hardened = confinement.hardening.is_some();
        let own_namespace = matches!(
            confinement.network,
            NetworkCut::Namespace | NetworkCut::UserNamespace
        );
        // Held through the spawn, so an interrupt either finds this server listed or
        // has already forbidden it.
        let mut supervised = supervised();
        if supervised.stopping {
            return Err(std::io::Error::other("the run is being interrupted"));
        }
        // The supervisor execs the server itself (std's exec is never reached), so
        // the exec is prepared here, with the same environment std would give it.
        // The isolation's environment first: a target's own `env:` wins over it.
        let mut server_exec = ServerExec::new(
            program,
            argv,
            inherit,
            environment
                .iter()
                .map(|(k, v)| (k.as_os_str(), v.as_os_str()))
                .chain(env.iter().map(|(k, v)| (OsStr::new(k), OsStr::new(v)))),
        )?;
        // The spawner forks the supervisor where it can (`spawner.rs`), and hands it
        // the confinement to enter.
        let from_spawner = by_the_spawner(&server_exec, places.root, &confinement);
        // Where the spawner was asked and failed, a control socket of its own: a
        // spawner that died mid-request may have forked a supervisor holding the
        // first one, which now sees it end, ends its tree and exits.
        let (child, pipes, (control_theirs, control_ours)) = match from_spawner {
            Some(spawned) => spawned?,
            None => {
                let (control_theirs, control_ours) = control_socket()?;
                let control = control_theirs.as_raw_fd();
                // std sets up what the supervisor and the server share (the pipes,
                // the folder, the process group); the program and its argv and
                // environment are in `server_exec`.
                let mut command = Command::new(program);
                command
                    .current_dir(places.root)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                // A hardened supervisor makes a session of its own, which leads a
                // group too; `setsid` fails in a process that leads one already.
                if !hardened {
                    command.process_group(0);
                }
                // SAFETY: the hook only makes async-signal-safe system calls (see
                // `supervisor` and `confinement`), and `control` stays open until the
                // spawn has returned. The confinement comes first, so the supervisor
                // is under it too.
                unsafe {
                    command.pre_exec(move || {
                        confinement
                            .enter()
                            .map_err(std::io::Error::from_raw_os_error)?;
                        become_supervisor(control, &mut server_exec, confinement.inside().as_ref())
                    });
                }
                let mut child = command.spawn()?;
                let pipes = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                    (Some(stdin), Some(stdout), Some(stderr)) => ServerPipes::new(
                        stdin.into_owned_fd()?,
                        stdout.into_owned_fd()?,
                        stderr.into_owned_fd()?,
                    )?,
                    _ => {
                        return Err(std::io::Error::other(
                            "the server's stdio pipes were not created",
                        ))
                    }
                };
                (
                    SupervisorChild::Forked(child),
                    pipes,
                    (control_theirs, control_ours),
                )
            }
        };
        drop(control_theirs);
        let pid = child.id();
        let number = supervised.next;
        supervised.next += 1;
        let control = Arc::new(control_ours);
        supervised.servers.insert(
            number,
            Supervisor {
                pid,
                control: control.clone(),
            },
        );
        supervised.children.extend(pid);
        for reaped in reap_left_running() {
            supervised.children.remove(&reaped);
        }
        drop(supervised);
        let mut process = ServerProcess {
            child,
            pipes: Some(pipes),
            pid,
            supervised: Some(number),
            control,
            _scratch: scratch,
            cgroup,
            limits: isolation.limits,
            namespace: None,
            places: given,
        };
        if matches!(process.child, SupervisorChild::Cloned(_)) {
            process.started_by_spawner()?;
        }
        // The supervisor entered it before it said it started, or before std's
        // spawn returned.
        if own_namespace && port.is_some() {
            if let Some(pid) = process.pid {
                process.namespace = Some(Arc::new(layers::namespace_of(pid)?));
            }
        }
        Ok(process)
    }

    /// The folders the server was given that another machine will not have.
    pub(super) fn places(&self) -> &MachinePlaces {
        &self.places
    }

    /// The server's own network namespace, when toolspec must connect from inside.
    pub(super) fn namespace(&self) -> Option<Arc<OwnedFd>> {
        self.namespace.clone()
    }

    /// The server's stdio pipes, once.
    pub(super) fn take_pipes(&mut self) -> Option<ServerPipes> {
        self.pipes.take()
    }

    /// Waits for what a supervisor forked by the spawner says first: that its
    /// server started, or the error its exec ended with (the supervisor then exits
    /// and is reaped here).
    fn started_by_spawner(&mut self) -> std::io::Result<()> {
        // The supervisor answers as soon as its exec is done.
        let said = receive_word(self.control.as_raw_fd());
        if said == Some(STARTED) {
            return Ok(());
        }
        self.end_containment();
        let status = self.reap_now();
        Err(match said {
            Some(errno) => std::io::Error::from_raw_os_error(errno),
            None => std::io::Error::other(format!(
                "the server's supervisor ended before it started the server ({})",
                status.map_or_else(|| "status unknown".to_string(), |s| s.to_string())
            )),
        })
    }

    /// Reaps a supervisor that has exited or is about to, waiting for it.
    fn reap_now(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + SUPERVISOR_GRACE;
        loop {
            if let Some(status) = self.child.try_wait() {
                if let Some(pid) = self.pid {
                    supervised().children.remove(&pid);
                }
                return Some(status);
            }
            if Instant::now() > deadline {
                self.child.start_kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The exit status, if the server has exited.
    pub(super) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait()
    }

    /// Ends the server politely, then by force, and returns once every process it
    /// started is gone. With `stdin_closed`, the server was asked to stop the stdio
    /// way and gets `grace` to do so before SIGTERM; otherwise (HTTP) SIGTERM is the
    /// polite ask. An error says the supervisor had let the server's tree go.
    pub(super) async fn stop(
        &mut self,
        grace: Duration,
        stdin_closed: bool,
    ) -> Result<(), StopFault> {
        let exited_alone =
            stdin_closed && tokio::time::timeout(grace, self.child.wait()).await.is_ok();
        if !exited_alone {
            self.signal_group(libc::SIGTERM);
            let _ = tokio::time::timeout(grace / 2, self.child.wait()).await;
        }
        // The supervisor kills whatever is left and exits once nothing is.
        self.end_containment();
        let status = match tokio::time::timeout(SUPERVISOR_GRACE, self.child.wait()).await {
            Ok(waited) => waited.ok(),
            Err(_) => {
                // Only a supervisor stuck in the kernel gets here; never leave it.
                self.child.start_kill();
                self.child.wait().await.ok()
            }
        };
        if status.is_some() {
            // Reaped by tokio: its pid is no child of toolspec's any more.
            if let Some(pid) = self.pid {
                supervised().children.remove(&pid);
            }
        }
        if !self.supervisor_finished() {
            CONTAINMENT_BROKE.store(true, Ordering::SeqCst);
            return Err(StopFault::Containment(BrokenContainment {
                supervisor: status,
                ended: escapes::adopting().then(end_escaped_processes),
            }));
        }
        match self.limit_hit(status) {
            Some(hit) => Err(StopFault::Limit(hit)),
            None => Ok(()),
        }
    }

    /// The limit the server hit, once its tree has ended: its cgroup's counters,
    /// or the server's own death by `SIGXFSZ` (its status is the supervisor's).
    fn limit_hit(&self, status: Option<ExitStatus>) -> Option<LimitHit> {
        use std::os::unix::process::ExitStatusExt;
        if let Some(hit) = self.cgroup.as_ref().and_then(ServerCgroup::hit) {
            return Some(hit);
        }
        LimitHit::by_signal(&self.limits, status.and_then(|s| s.signal())?)
    }

    /// Whether the supervisor said, before it exited, that it had ended its
    /// server's whole tree. Asked once the supervisor has been reaped.
    fn supervisor_finished(&self) -> bool {
        let mut said = [0u8; 1];
        // SAFETY: a non-blocking read of at most one byte into `said`, from a socket
        // this process owns.
        let read = unsafe {
            libc::recv(
                self.control.as_raw_fd(),
                said.as_mut_ptr().cast(),
                said.len(),
                libc::MSG_DONTWAIT,
            )
        };
        read == 1 && said == FINISHED
    }

    /// Ends the control socket: the supervisor kills the server's whole tree and
    /// exits (and can still say it finished). Safe to repeat.
    fn end_containment(&mut self) {
        if let Some(number) = self.supervised.take() {
            supervised().servers.remove(&number);
            shut_down(&self.control, libc::SHUT_WR);
        }
    }

    fn signal_group(&self, signal: i32) {
        if let Some(pgid) = self.pid {
            // SAFETY: killpg only sends a signal; a stale group id fails with ESRCH.
            // The supervisor, which leads the group, ignores the polite signals.
            unsafe {
                libc::killpg(pgid, signal);
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Not a kill: a killed supervisor would hand the server's tree to init.
        self.end_containment();
    }
}

/// How long a supervisor may take to end a server's tree once asked.
const SUPERVISOR_GRACE: Duration = Duration::from_secs(5);

/// A running supervisor: its pid and toolspec's end of its control socket.
struct Supervisor {
    pid: Option<i32>,
    control: Arc<OwnedFd>,
}

/// Every running supervisor, every child toolspec started and has not reaped yet,
/// and whether the run is being interrupted.
struct Supervised {
    stopping: bool,
    next: u64,
    servers: BTreeMap<u64, Supervisor>,
    children: BTreeSet<i32>,
}

static SUPERVISED: Mutex<Supervised> = Mutex::new(Supervised {
    stopping: false,
    next: 0,
    servers: BTreeMap::new(),
    children: BTreeSet::new(),
});

fn supervised() -> MutexGuard<'static, Supervised> {
    // A panic elsewhere while holding the lock leaves the list itself intact.
    SUPERVISED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Asks the spawner for the supervisor (see `spawner.rs`), with new pipes for the
/// server's stdio and a new control socket (the supervisor's end, toolspec's);
/// `None` when there is no spawner to ask, before anything is made for it.
#[allow(
    clippy::type_complexity,
    reason = "the supervisor, its pipes and its control socket, made together"
)]
fn by_the_spawner(
    exec: &ServerExec,
    cwd: &Path,
    confinement: &Confinement,
) -> Option<std::io::Result<(SupervisorChild, ServerPipes, (OwnedFd, OwnedFd))>> {
    if !spawner::running() {
        return None;
    }
    let made = (|| Ok::<_, std::io::Error>((pipe()?, pipe()?, pipe()?, control_socket()?)))();
    let (
        (stdin_theirs, stdin_ours),
        (stdout_ours, stdout_theirs),
        (stderr_ours, stderr_theirs),
        control,
    ) = match made {
        Ok(made) => made,
        Err(e) => return Some(Err(e)),
    };
    let pid = match spawner::spawn(
        exec,
        cwd,
        [&stdin_theirs, &stdout_theirs, &stderr_theirs, &control.0],
        confinement,
    )? {
        Ok(pid) => pid,
        Err(e) => return Some(Err(e)),
    };
    Some(SupervisorChild::cloned(pid).and_then(|child| {
        Ok((
            child,
            ServerPipes::new(stdin_ours, stdout_ours, stderr_ours)?,
            control,
        ))
    }))
}

/// A pipe closed on exec: its read end, then its write end.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    // std makes both ends close on exec.
    let (read, write) = std::io::pipe()?;
    Ok((read.into(), write.into()))
}

/// Starts the spawner (`spawner.rs`), which forks every server's supervisor from a
/// small process instead of from toolspec's own, larger one. Call it first in
/// `main`, while the process runs one thread; later, or in a process running
/// others, it does nothing, and toolspec forks each supervisor itself.
pub fn start_spawner() {
    if let Some(pid) = spawner::start() {
        supervised().children.insert(pid);
    }
}

/// Ends the spawner and reaps it, at the end of a run: otherwise it would exit
/// after toolspec and be left for init to reap.
pub(crate) fn stop_spawner() {
    if let Some(pid) = spawner::stop() {
        let mut status = 0;
        // SAFETY: waitpid of the spawner, a child of this process; it exits as soon
        // as its socket has closed.
        unsafe {
            libc::waitpid(pid, &mut status, 0);
        }
        supervised().children.remove(&pid);
    }
}

/// A connected pair of Unix stream sockets (the supervisor's end, toolspec's),
/// closed on exec, so that no other program started from toolspec holds one open.
/// toolspec ends its side to ask the supervisor to finish; the supervisor sends
/// [`FINISHED`] when it has.
fn control_socket() -> std::io::Result<(OwnedFd, OwnedFd)> {
    // std makes both ends close on exec.
    let (theirs, ours) = std::os::unix::net::UnixStream::pair()?;
    Ok((theirs.into(), ours.into()))
}

/// Shuts down `how` (`SHUT_WR`, `SHUT_RDWR`) of a control socket: the supervisor
/// reads the end of it.
fn shut_down(control: &OwnedFd, how: libc::c_int) {
    // SAFETY: shutdown on a socket this process owns; a failure changes nothing.
    unsafe {
        libc::shutdown(control.as_raw_fd(), how);
    }
}

/// Why stopping a server says its scenario cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopFault {
    /// The server's tree got out of its supervisor's hold.
    Containment(BrokenContainment),
    /// The server hit one of its resource limits (`isolation.limits`).
    Limit(LimitHit),
}

impl std::fmt::Display for StopFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopFault::Containment(broken) => broken.fmt(f),
            StopFault::Limit(hit) => f.write_str(&hit.describe()),
        }
    }
}

/// Why a scenario's containment broke: the server's supervisor exited (`supervisor`,
/// its status if it was reaped) without having ended the server's tree, most likely
/// killed by the server, so what the server started was reparented away from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BrokenContainment {
    supervisor: Option<ExitStatus>,
    /// How many processes this process adopted and ended; `None` when it does not
    /// adopt them (see [`escapes::adopt_escaped_processes`]).
    ended: Option<usize>,
}

impl std::fmt::Display for BrokenContainment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "containment broken: the server's supervisor ended")?;
        if let Some(status) = self.supervisor {
            write!(f, " ({status})")?;
        }
        write!(
            f,
            " before the processes it held did (a server that kills its supervisor does \
             this); "
        )?;
        match self.ended {
            Some(count) => write!(f, "toolspec adopted and ended {count} of them"),
            None => write!(
                f,
                "this process does not adopt them (see toolspec::adopt_escaped_processes), \
                 so they may still be running"
            ),
        }
    }
}

/// Kills and reaps every child of this process that toolspec did not start: what
/// escaped a supervisor and was reparented here. Does nothing (0) unless this
/// process adopts escaped processes.
fn end_escaped_processes() -> usize {
    // Held throughout, so no child is started unlisted meanwhile.
    let supervised = supervised();
    escapes::end_strays(&supervised.children)
}

/// Runs `command` to its end and returns its output (stdin empty), listed as a
/// child of toolspec's own while it runs, so that it is never taken for an escaped
/// process.
pub(crate) fn output_of_listed(
    command: &mut std::process::Command,
) -> std::io::Result<std::process::Output> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = {
        let mut supervised = supervised();
        let child = command.spawn()?;
        supervised.children.extend(i32::try_from(child.id()).ok());
        child
    };
    let pid = i32::try_from(child.id()).ok();
    let output = child.wait_with_output();
    if let Some(pid) = pid {
        supervised().children.remove(&pid);
    }
    output
}

/// Set once the run is being interrupted.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Whether [`kill_every_session`] has been called: the run was interrupted.
pub(crate) fn interrupted() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Ends every server of this toolspec process with everything it started, for when
/// the run itself is interrupted, refuses to start new ones, and waits (a few
/// seconds at most) until every supervisor has finished. Returns how many servers
/// were running.
pub(crate) fn kill_every_session() -> usize {
    STOPPING.store(true, Ordering::SeqCst);
    let servers = {
        let mut supervised = supervised();
        supervised.stopping = true;
        std::mem::take(&mut supervised.servers)
    };
    let pids: Vec<i32> = servers.values().filter_map(|s| s.pid).collect();
    // Ending the control sockets asks every supervisor at once.
    for server in servers.values() {
        shut_down(&server.control, libc::SHUT_RDWR);
    }
    drop(servers);
    let deadline = Instant::now() + SUPERVISOR_GRACE;
    while pids.iter().any(|pid| still_running(*pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    pids.len()
}

/// Whether `pid` is a live process (not gone, not a zombie waiting to be reaped). A
/// supervisor exits only once its tree is gone, so this tells when that is.
fn still_running(pid: i32) -> bool {
    proc_stat::after_name(&pid.to_string()).is_some_and(|fields| !fields.starts_with('Z'))
}

/// Whether the interrupted run has been wound up (servers stopped, fixtures removed,
/// the message printed). Held while that happens.
static WOUND_UP: Mutex<bool> = Mutex::new(false);

/// Stops every server, removes every fixture and says so, once. Both the interrupt
/// watcher and the main thread (which may see the interrupt first and return) call
/// it before exiting 130; whichever comes second waits for the first to finish, so
/// the message is never lost to an exit racing it nor printed twice.
pub(crate) fn finish_interrupted_run() {
    let mut wound_up = WOUND_UP
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if *wound_up {
        return;
    }
    let stopped = kill_every_session();
    // What escaped a supervisor before the interrupt is still this process's.
    end_escaped_processes();
    // After the servers: none may write into a fixture being removed.
    crate::fixture::remove_every_fixture();
    eprintln!("toolspec: interrupted; stopped {stopped} server(s)");
    *wound_up = true;
}

/// What a run that starts servers sets up first: this process adopts whatever
/// escapes a server's supervisor (see `escapes.rs`), and an interrupt stops every
/// server (see [`stop_servers_on_interrupt`]).
pub(crate) fn contain_the_run() {
    if let Err(e) = escapes::adopt_escaped_processes() {
        eprintln!(
            "toolspec: cannot adopt processes that escape a server's supervisor ({e}); a \
             server that kills its supervisor may leave processes behind"
        );
    }
    stop_servers_on_interrupt();
}

/// Set once a supervisor has exited without having ended its server's tree. Only
/// then can anything have been reparented to this process.
static CONTAINMENT_BROKE: AtomicBool = AtomicBool::new(false);

/// At the end of a run: ends whatever escaped a supervisor and is still here (each
/// scenario's own stop has ended what escaped it), and says so if there was any.
///
/// Looks only when some supervisor broke: a supervisor that ended normally ended
/// its server's whole tree first, so nothing of it was reparented here. Reading
/// the threads' children lists for nothing is not free: it makes dentries under
/// `/proc/<pid>/task`, and when the run's threads then exit with the process, the
/// one that reaps `toolspec` spins in the kernel until they are gone (about 4 ms
/// of its CPU, measured here), once per `toolspec` run.
pub(crate) fn end_what_escaped() {
    if !CONTAINMENT_BROKE.load(Ordering::SeqCst) {
        return;
    }
    let ended = end_escaped_processes();
    if ended > 0 {
        eprintln!("toolspec: ended {ended} process(es) that escaped their servers' containment");
    }
}

/// On Ctrl-C or SIGTERM, end every server this run started (they sit in process
/// groups of their own, so the terminal's signal does not reach them), remove every
/// fixture on disk, and exit 130.
///
/// Returns once the handlers are in place (or could not be), so that no server is
/// started while a Ctrl-C would still end toolspec the default way, leaving them.
fn stop_servers_on_interrupt() {
    let (ready, listening) = std::sync::mpsc::channel::<()>();
    let watcher = std::thread::Builder::new()
        .name("interrupt".into())
        .spawn(move || {
            let Ok(runtime) = super::runtime::thread_runtime() else {
                return;
            };
            runtime.block_on(async {
                use tokio::signal::unix::{signal, SignalKind};
                let (Ok(mut int), Ok(mut term)) = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                ) else {
                    return;
                };
                let _ = ready.send(());
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                finish_interrupted_run();
                std::process::exit(130);
            });
        });
    match watcher {
        // A watcher that gave up drops `ready`, which ends the wait at once.
        Ok(_) => {
            if listening.recv_timeout(Duration::from_secs(10)).is_err() {
                eprintln!(
                    "toolspec: cannot watch for Ctrl-C; an interrupted run may leave servers behind"
                );
            }
        }
        Err(e) => eprintln!(
            "toolspec: cannot watch for Ctrl-C ({e}); an interrupted run may leave servers behind"
        ),
    }
}
