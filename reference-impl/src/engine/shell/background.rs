//! Background tasks: commands started without waiting, known by a random
//! 16-hex-digit id until their result has been reported once.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::supervise::{drive, Captured};
use super::{lock, CommandOutput, Shell};
use crate::engine::error::EngineError;

/// At most this many background tasks may be running or finished-but-unread.
pub(crate) const MAX_BACKGROUND_TASKS: usize = 10;

/// A background task as seen by [`Shell::task_status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TaskStatus {
    /// Still running; the output captured so far.
    Running { stdout: String, stderr: String },
    /// Finished; the task is forgotten once this has been returned.
    Completed(CommandOutput),
}

pub(super) struct BackgroundTask {
    captured: Arc<Mutex<Captured>>,
    result: Arc<Mutex<Option<CommandOutput>>>,
}

impl Shell {
    /// Starts `command` in the background and returns its 16-hex-digit id.
    /// `timeout`, if given, bounds its run time as for [`Shell::run`].
    pub(crate) fn start_background(
        &self,
        command: &str,
        timeout: Option<Duration>,
    ) -> Result<String, EngineError> {
        let mut tasks = lock(&self.tasks);
        if tasks.len() >= MAX_BACKGROUND_TASKS {
            return Err(EngineError::TaskLimit {
                limit: MAX_BACKGROUND_TASKS,
            });
        }
        let (child, guard) = self.spawn(command)?;
        let captured = Arc::new(Mutex::new(Captured::default()));
        let result = Arc::new(Mutex::new(None));
        let id = loop {
            let id = self.new_task_id();
            if !tasks.contains_key(&id) {
                break id;
            }
        };
        tasks.insert(
            id.clone(),
            BackgroundTask {
                captured: captured.clone(),
                result: result.clone(),
            },
        );
        tokio::spawn(async move {
            let output = drive(child, guard, timeout, captured).await;
            *lock(&result) = Some(output);
        });
        Ok(id)
    }

    /// How many background tasks the session holds (running, or finished but
    /// not yet reported).
    pub(crate) fn task_count(&self) -> usize {
        lock(&self.tasks).len()
    }

    /// Reports a background task; a completed task is removed once reported.
    pub(crate) fn task_status(&self, id: &str) -> Result<TaskStatus, EngineError> {
        let mut tasks = lock(&self.tasks);
        let task = tasks
            .get(id)
            .ok_or_else(|| EngineError::TaskNotFound { id: id.to_string() })?;
        let finished = lock(&task.result).clone();
        match finished {
            Some(output) => {
                tasks.remove(id);
                Ok(TaskStatus::Completed(output))
            }
            None => {
                let captured = lock(&task.captured);
                Ok(TaskStatus::Running {
                    stdout: String::from_utf8_lossy(&captured.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&captured.stderr).into_owned(),
                })
            }
        }
    }

    /// 16 lower-case hex digits from the standard library's randomly keyed
    /// SipHash over a counter: unique within a session, unguessable enough.
    fn new_task_id(&self) -> String {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(self.id_counter.fetch_add(1, Ordering::Relaxed));
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        format!("{:016x}", hasher.finish())
    }
}
