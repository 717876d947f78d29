//! Where a thread runs: starting a new worker on the CPU its caller is
//! about to leave (see [`Cpus`]).

/// The CPUs a thread may run on, as it was before [`Cpus::pin_here`].
///
/// Why: a caller hands a job to a new worker and waits for it at once, so
/// the CPU it runs on is about to be free. Left to itself, the scheduler
/// starts a new thread on the CPU it judges least loaded, which on a busy
/// machine is often one where the thread waits behind other work while the
/// caller's CPU idles: measured at several ms on 2 shared cores, more than a
/// whole depth-2 listing of 50 small folders takes. A thread created while
/// its creator is pinned to one CPU starts there; each then takes the saved
/// set back, so nothing stays pinned.
#[derive(Clone, Copy)]
pub(crate) struct Cpus(libc::cpu_set_t);

impl Cpus {
    /// Pins the calling thread to the CPU it is on, and returns the set it
    /// had; `None` (nothing changed) where affinity cannot be read or set.
    pub(crate) fn pin_here() -> Option<Cpus> {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: zeroed cpu_set_t values are valid, and each call gets a
        // pointer to one of them with its size; 0 names the calling thread.
        unsafe {
            let mut saved: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut saved) != 0 {
                return None;
            }
            let cpu = usize::try_from(libc::sched_getcpu())
                .ok()
                .filter(|&c| c < libc::CPU_SETSIZE as usize)?;
            let mut here: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut here);
            (libc::sched_setaffinity(0, size, &here) == 0).then_some(Cpus(saved))
        }
    }

    /// Gives the calling thread the saved set (or every CPU, should the set
    /// no longer be allowed: a thread is never left pinned).
    pub(crate) fn restore(&self) {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: as in `pin_here`.
        unsafe {
            if libc::sched_setaffinity(0, size, &self.0) != 0 {
                let mut every: libc::cpu_set_t = std::mem::zeroed();
                for cpu in 0..libc::CPU_SETSIZE as usize {
                    libc::CPU_SET(cpu, &mut every);
                }
                libc::sched_setaffinity(0, size, &every);
            }
        }
    }
}

/// The CPUs the calling thread may run on (tests).
#[cfg(test)]
pub(crate) fn cpus_of_this_thread() -> Vec<usize> {
    // SAFETY: a zeroed set and its size; 0 names the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}
