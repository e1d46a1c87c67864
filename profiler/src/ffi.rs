//! The C entry points the MPI wrappers (`interpose.c`) call: one process-wide
//! [`Profile`] behind a lock, and the files written at `MPI_Finalize`.
//!
//! Nothing here may disturb the application: a panic is caught, reported once on
//! standard error and turns profiling off; a file that cannot be written is reported
//! and skipped.

use crate::export::{matrix_csv, rank_json, row_entries, ENTRY};
use crate::profile::{Phase, Profile};
use orcs::trace::collective::{AlgorithmChoice, CallData, CollectiveOp};
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Mutex;

/// The profile of this process, from `MPI_Init` to `MPI_Finalize`.
static PROFILE: Mutex<Option<Profile>> = Mutex::new(None);

/// The folder the files go to: `ORCS_PROFILE_DIR`, else `orcs-profile` in the working
/// directory.
fn output_dir() -> PathBuf {
    std::env::var_os("ORCS_PROFILE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("orcs-profile"))
}

/// Runs `f` on the profile, if profiling is on; `otherwise` when it is not. A panic
/// turns profiling off.
fn with<T>(otherwise: T, f: impl FnOnce(&mut Profile) -> T) -> T {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut guard = PROFILE.lock().unwrap_or_else(|e| e.into_inner());
        guard.as_mut().map(f)
    }));
    match outcome {
        Ok(Some(v)) => v,
        Ok(None) => otherwise,
        Err(_) => {
            if let Ok(mut guard) = PROFILE.lock() {
                *guard = None;
            }
            eprintln!("orcs-profiler: internal error; profiling is off for the rest of the run");
            otherwise
        }
    }
}

/// A slice from a C pointer and length (empty for a null pointer or a negative length).
///
/// # Safety
/// `ptr` must point to `len` readable values when it is not null.
unsafe fn slice<'a, T>(ptr: *const T, len: i64) -> &'a [T] {
    match usize::try_from(len) {
        Ok(n) if !ptr.is_null() => std::slice::from_raw_parts(ptr, n),
        _ => &[],
    }
}

/// A mutable slice from a C pointer and length.
///
/// # Safety
/// `ptr` must point to `len` writable values when it is not null.
unsafe fn slice_mut<'a, T>(ptr: *mut T, len: i64) -> &'a mut [T] {
    match usize::try_from(len) {
        Ok(n) if !ptr.is_null() => std::slice::from_raw_parts_mut(ptr, n),
        _ => &mut [],
    }
}

/// Starts profiling world rank `rank` of `size` on `host`.
///
/// # Safety
/// `host` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_start(rank: i32, size: i32, host: *const c_char) {
    let host = if host.is_null() {
        String::new()
    } else {
        CStr::from_ptr(host).to_string_lossy().into_owned()
    };
    let algorithms = match std::env::var("ORCS_PROFILE_ALGORITHMS") {
        Ok(spec) => AlgorithmChoice::parse(&spec).unwrap_or_else(|e| {
            if rank == 0 {
                eprintln!("orcs-profiler: ORCS_PROFILE_ALGORITHMS: {e}; MPICH's choices are used");
            }
            AlgorithmChoice::automatic()
        }),
        Err(_) => AlgorithmChoice::automatic(),
    };
    let (Ok(rank), Ok(size)) = (u32::try_from(rank), u32::try_from(size)) else {
        return;
    };
    let started = catch_unwind(|| Profile::new(rank, size, host, algorithms));
    if let (Ok(profile), Ok(mut guard)) = (started, PROFILE.lock()) {
        *guard = Some(profile);
    }
}

/// Whether communicator `comm` is described (1) or not (0).
#[no_mangle]
pub extern "C" fn orcs_prof_knows(comm: u64) -> i32 {
    with(1, |p| i32::from(p.knows(comm)))
}

/// Describes communicator `comm`: `peers[i]` (n of them) is the world rank of its rank
/// i, `rank` this process's rank in it; `inter` is non-zero for an intercommunicator,
/// whose `peers` are its remote group.
///
/// # Safety
/// `peers` points to `n` integers.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_register(
    comm: u64,
    n: i32,
    peers: *const i32,
    rank: i32,
    inter: i32,
) {
    let peers = slice(peers, i64::from(n));
    with((), |p| p.register(comm, peers, rank, inter != 0));
}

/// Forgets communicator `comm`.
#[no_mangle]
pub extern "C" fn orcs_prof_forget(comm: u64) {
    with((), |p| p.forget(comm));
}

/// A send of `bytes` to rank `peer` of `comm`: 0 when `comm` must be described first
/// (then nothing is counted), 1 otherwise.
#[no_mangle]
pub extern "C" fn orcs_prof_send(comm: u64, peer: i32, bytes: u64) -> i32 {
    with(1, |p| i32::from(p.send(comm, peer, bytes)))
}

/// A fetch of `bytes` from rank `peer` of `comm` (see [`Profile::pull`]).
#[no_mangle]
pub extern "C" fn orcs_prof_pull(comm: u64, peer: i32, bytes: u64) {
    with((), |p| p.pull(comm, peer, bytes));
}

/// A persistent send request.
#[no_mangle]
pub extern "C" fn orcs_prof_persistent(request: u64, comm: u64, peer: i32, bytes: u64) {
    with((), |p| p.persistent(request, comm, peer, bytes));
}

/// Adds a send to what each start of persistent request `request` sends.
#[no_mangle]
pub extern "C" fn orcs_prof_persistent_add(request: u64, comm: u64, peer: i32, bytes: u64) {
    with((), |p| p.persistent_add(request, comm, peer, bytes));
}

/// A persistent collective request (MPI 4's `MPI_X_init`): each start is the collective
/// [`orcs_prof_collective`] describes with the same arguments. Returns 1.
///
/// # Safety
/// `per_rank` is null or points to `n` sizes.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_persistent_collective(
    request: u64,
    comm: u64,
    op: i32,
    root: i32,
    commutative: i32,
    bytes: u64,
    per_rank: *const u64,
    n: i32,
) -> i32 {
    let Some((op, data)) = collective_call(op, bytes, per_rank, n) else {
        return 1;
    };
    with(1, |p| {
        p.persistent_collective(request, comm, op, root, commutative != 0, data);
        1
    })
}

/// `MPI_Start` of `request`.
#[no_mangle]
pub extern "C" fn orcs_prof_start_request(request: u64) {
    with((), |p| p.start(request));
}

/// `MPI_Request_free` of `request`.
#[no_mangle]
pub extern "C" fn orcs_prof_free_request(request: u64) {
    with((), |p| p.free_request(request));
}

/// A collective call on `comm`: operation `op` (an index into [`CollectiveOp::ALL`]),
/// `root`, whether the reduction operator commutes, and its data: `n` sizes at
/// `per_rank` when it is not null, else `bytes`. Returns 0, counting nothing, when
/// `comm` must be described first; 1 otherwise.
///
/// # Safety
/// `per_rank` is null or points to `n` sizes.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_collective(
    comm: u64,
    op: i32,
    root: i32,
    commutative: i32,
    bytes: u64,
    per_rank: *const u64,
    n: i32,
) -> i32 {
    let Some((op, data)) = collective_call(op, bytes, per_rank, n) else {
        return 1;
    };
    with(1, |p| {
        i32::from(p.collective(comm, op, root, commutative != 0, data))
    })
}

/// The operation (an index into [`CollectiveOp::ALL`], None when out of range) and data
/// of a collective call as the wrappers pass them: `n` sizes at `per_rank` when it is
/// not null, else `bytes` (none for a barrier).
///
/// # Safety
/// `per_rank` is null or points to `n` sizes, alive for `'a`.
unsafe fn collective_call<'a>(
    op: i32,
    bytes: u64,
    per_rank: *const u64,
    n: i32,
) -> Option<(CollectiveOp, CallData<'a>)> {
    let op = *usize::try_from(op)
        .ok()
        .and_then(|i| CollectiveOp::ALL.get(i))?;
    let data = if !per_rank.is_null() {
        CallData::PerRank(slice(per_rank, i64::from(n)))
    } else if op == CollectiveOp::Barrier {
        CallData::None
    } else {
        CallData::Bytes(bytes)
    };
    Some((op, data))
}

/// `MPI_Pcontrol(level)`.
#[no_mangle]
pub extern "C" fn orcs_prof_pcontrol(level: i32) {
    with((), |p| p.pcontrol(level));
}

/// The phases this rank has, as a mask (bit k: phase k; see [`Profile::levels`]); 0
/// when profiling is off.
#[no_mangle]
pub extern "C" fn orcs_prof_levels() -> u64 {
    with(0, |p| p.levels())
}

/// Makes the phases of `levels`, the mask combined over every rank, exist here;
/// `pcontrol` non-zero when some rank called `MPI_Pcontrol` (so every rank writes the
/// multi-phase layout).
#[no_mangle]
pub extern "C" fn orcs_prof_ensure_phases(levels: u64, pcontrol: i32) {
    with((), |p| {
        p.ensure_phases(levels);
        p.pcontrol |= pcontrol != 0;
    });
}

/// Whether this rank called `MPI_Pcontrol`.
#[no_mangle]
pub extern "C" fn orcs_prof_used_pcontrol() -> i32 {
    with(0, |p| i32::from(p.pcontrol))
}

/// Writes phase `level`'s (bytes, messages) fetched from each world rank into `out` (2 ×
/// ranks values), for the exchange that tells each rank what others fetched from it.
///
/// # Safety
/// `out` points to 2 × ranks writable values.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_pulled_pairs(level: i32, out: *mut u64) {
    write_pairs(level, out, |phase| {
        (&phase.pulled_bytes, &phase.pulled_messages)
    });
}

/// Writes `vectors(phase level)` as (bytes, messages) pairs per world rank into `out`
/// (2 × ranks values), left as they are when the phase does not exist.
///
/// # Safety
/// `out` points to 2 × ranks writable values.
unsafe fn write_pairs(level: i32, out: *mut u64, vectors: fn(&Phase) -> (&Vec<u64>, &Vec<u64>)) {
    with((), |p| {
        let out = slice_mut(out, 2 * i64::from(p.ranks));
        if let Some(Some(phase)) = usize::try_from(level).ok().and_then(|l| p.phases.get(l)) {
            let (bytes, messages) = vectors(phase);
            for (j, pair) in out.chunks_exact_mut(2).enumerate() {
                pair[0] = bytes[j];
                pair[1] = messages[j];
            }
        }
    });
}

/// Adds to phase `level`'s sends what each world rank fetched from this one, laid out
/// as [`orcs_prof_pulled_pairs`] writes it.
///
/// # Safety
/// `pairs` points to 2 × ranks values.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_add_served(level: i32, pairs: *const u64) {
    with((), |p| {
        let pairs = slice(pairs, 2 * i64::from(p.ranks));
        let served: Vec<(u64, u64)> = pairs.chunks_exact(2).map(|c| (c[0], c[1])).collect();
        p.add_served(usize::try_from(level).unwrap_or(usize::MAX), &served);
    });
}

/// Writes phase `level`'s (bytes, messages) to each world rank into `out` (2 × ranks
/// values), for the exchange that gives every rank what it received.
///
/// # Safety
/// `out` points to 2 × ranks writable values.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_tx_pairs(level: i32, out: *mut u64) {
    write_pairs(level, out, |phase| (&phase.tx_bytes, &phase.tx_messages));
}

/// Sets phase `level`'s received (bytes, messages) from each world rank, as
/// [`orcs_prof_tx_pairs`] lays them out.
///
/// # Safety
/// `pairs` points to 2 × ranks values.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_set_rx(level: i32, pairs: *const u64) {
    with((), |p| {
        let pairs = slice(pairs, 2 * i64::from(p.ranks));
        if let Some(Some(phase)) = usize::try_from(level)
            .ok()
            .and_then(|l| p.phases.get_mut(l))
        {
            for (j, pair) in pairs.chunks_exact(2).enumerate() {
                phase.rx_bytes[j] = pair[0];
                phase.rx_messages[j] = pair[1];
            }
        }
    });
}

/// The length, in values, of this rank's row of phase `level` (see
/// [`crate::export::row_entries`]).
#[no_mangle]
pub extern "C" fn orcs_prof_row_len(level: i32) -> i64 {
    with(0, |p| {
        (usize::try_from(level).ok().and_then(|l| p.phases.get(l)))
            .and_then(Option::as_ref)
            .map_or(0, |phase| row_entries(phase).len() as i64)
    })
}

/// Writes this rank's row of phase `level` into `out` ([`orcs_prof_row_len`] values).
///
/// # Safety
/// `out` points to that many writable values.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_row(level: i32, out: *mut u64) {
    with((), |p| {
        let phase = usize::try_from(level).ok().and_then(|l| p.phases.get(l));
        if let Some(Some(phase)) = phase {
            let row = row_entries(phase);
            let out = slice_mut(out, row.len() as i64);
            out.copy_from_slice(&row[..out.len()]);
        }
    });
}

/// Writes `message` about this rank on standard error.
fn warn(rank: u32, message: &str) {
    eprintln!("orcs-profiler: rank {rank}: {message}");
}

/// Writes `bytes` to `name` in the output folder, or says why it cannot.
fn write_file(rank: u32, name: &str, bytes: &[u8]) -> bool {
    let dir = output_dir();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        warn(rank, &format!("cannot create {}: {e}", dir.display()));
        return false;
    }
    let path = dir.join(name);
    match orcs::output::write_whole(&path.to_string_lossy(), bytes) {
        Ok(()) => true,
        Err(e) => {
            warn(rank, &format!("cannot write the profile: {e}"));
            false
        }
    }
}

/// At rank 0: writes the matrix of phase `level` from every rank's row, gathered one
/// after the other into `rows` (`lengths[r]` values from rank r). Returns 1 when the
/// file is written.
///
/// # Safety
/// `lengths` points to ranks values and `rows` to their sum.
#[no_mangle]
pub unsafe extern "C" fn orcs_prof_write_matrix(
    level: i32,
    rows: *const u64,
    lengths: *const i64,
) -> i32 {
    with(0, |p| {
        let lengths = slice(lengths, i64::from(p.ranks));
        let total: i64 = lengths.iter().map(|&l| l.max(0)).sum();
        let all = slice(rows, total);
        let mut split = Vec::with_capacity(lengths.len());
        let mut at = 0usize;
        for &l in lengths {
            let l = usize::try_from(l).unwrap_or(0) / ENTRY * ENTRY;
            split.push(&all[at.min(all.len())..(at + l).min(all.len())]);
            at += l;
        }
        let level = usize::try_from(level).unwrap_or(0);
        let name = match level {
            0 => "matrix.csv".to_string(),
            k => format!("matrix.phase-{k}.csv"),
        };
        i32::from(write_file(
            p.rank,
            &name,
            matrix_csv(level, p.ranks, &split).as_bytes(),
        ))
    })
}

/// Writes this rank's PFProf JSON file (`rank-<rank>.json`) and ends profiling.
/// Returns 1 when the file is written.
#[no_mangle]
pub extern "C" fn orcs_prof_finish() -> i32 {
    let written = with(0, |p| {
        i32::from(write_file(
            p.rank,
            &format!("rank-{}.json", p.rank),
            rank_json(p).as_bytes(),
        ))
    });
    if let Ok(mut guard) = PROFILE.lock() {
        *guard = None;
    }
    written
}
