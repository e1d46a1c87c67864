//! The argument layout of every call a DUMPI trace can hold, as one data table read by
//! one decoder ([`super::stream`]) and one printer ([`super::ascii`]).
//!
//! Each entry names the call as `dumpi2ascii` prints it and lists its arguments in the
//! order they are stored; an argument's [`Kind`] says how it is encoded, how it is
//! interpreted (the width and sign of the value libdumpi keeps) and how it is printed.
//! A few calls store arguments only at the root of a collective ([`Arg::at_root`]),
//! print their arguments in another order than they are stored ([`CallLayout::shown`]),
//! or changed their encoding between format versions ([`Kind::IntsSince068`] and
//! friends). Arrays carry their own element count; [`Arg::len`] names the argument
//! that holds the length a reader should use (it is overwritten by the stored count,
//! as libdumpi's own reader does).
//!
//! The table is indexed by the function label of the trace format (0 = `MPI_Send` …
//! 289 = `MPIO_Testsome`, 291/292 = `Function_enter`/`Function_exit`). Labels 128
//! (`MPI_Pcontrol`, recorded by libdumpi as `Function_enter`/`exit` pairs) and 290
//! (`MPI_ALL_FUNCTIONS`, the footer's total) never start a record.

/// How one argument is stored, interpreted and printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `int`: 4 bytes.
    Int,
    /// `MPI_Init`'s `argc`: 4 bytes, followed before format 0.6.2 by a repeated count.
    Argc,
    /// A destination rank: 4 bytes; printed with `(MPI_ROOT)` for -2.
    Dest,
    /// A source rank: 4 bytes; printed with `(MPI_ANY_SOURCE)` or `(MPI_ROOT)`.
    Source,
    /// A tag: 4 bytes; printed with `(MPI_ANY_TAG)` for -1.
    Tag,
    /// A 64-bit integer (offsets, sizes): 8 bytes.
    Int64,
    /// A function address (`Function_enter`/`exit`): 8 bytes; printed with its label.
    Function,
    /// `MPI_Comm`: 2 bytes.
    Comm,
    /// `MPI_Datatype`: 2 bytes.
    Datatype,
    /// `MPI_Group`: 2 bytes.
    Group,
    /// `MPI_Info`: 2 bytes.
    Info,
    /// `MPI_File`: 2 bytes.
    File,
    /// `MPI_Win`: 2 bytes.
    Win,
    /// `MPI_Errhandler`: 2 bytes.
    Errhandler,
    /// An attribute key (communicator, datatype or window keyval): 2 bytes.
    Keyval,
    /// `MPI_Op`: 1 byte.
    Op,
    /// A datatype combiner: 1 byte.
    Combiner,
    /// A comparison result (`MPI_IDENT` …): 1 byte, signed.
    Comparison,
    /// A file access mode: 1 byte.
    Filemode,
    /// A window lock type: 1 byte.
    Locktype,
    /// An array ordering (`MPI_ORDER_C` …): 1 byte, signed.
    Ordering,
    /// A thread support level: 1 byte.
    Threadlevel,
    /// A topology type: 1 byte.
    Topology,
    /// A type class: 1 byte.
    Typeclass,
    /// A file seek origin: 1 byte.
    Whence,
    /// A window assertion (a set of `MPI_MODE_*` bits): 1 byte.
    WinAssert,
    /// `MPI_Request`: 4 bytes.
    Request,
    /// `MPIO_Request`: 4 bytes.
    IoRequest,
    /// One `MPI_Status`, stored only when the record's mask asks for statuses.
    Status,
    /// An array of `MPI_Status`, stored only when the record's mask asks for statuses;
    /// [`Arg::len`] names the count printed.
    Statuses,
    /// A string: 4-byte length and the bytes.
    Text,
    /// An array of strings: 4-byte count and that many strings.
    Texts,
    /// An array of strings printed as a NULL-terminated list (`MPI_Comm_spawn`'s `argv`).
    TextsUntilNull,
    /// An array of arrays of strings (`MPI_Comm_spawn_multiple`'s `argvs`).
    TextLists,
    /// `MPI_Init`'s `argv`: as many strings as [`Arg::len`]'s argument says, without a
    /// count of their own.
    Argv,
    /// An array of `int`: 4-byte count and 4-byte elements.
    Ints,
    /// An array of `int` since format 0.6.8; before, a single `int` (`MPI_Cart_get`).
    IntsSince068,
    /// An array of `int` since format 0.6.9; before, a single `int` (`MPI_Type_struct`).
    IntsSince069,
    /// An array of `MPI_Request`.
    Requests,
    /// An array of `MPIO_Request`.
    IoRequests,
    /// An array of `MPI_Datatype`: 4-byte count and 2-byte elements.
    Datatypes,
    /// An array of `MPI_Info`: 4-byte count and 2-byte elements.
    Infos,
    /// An array of darray distributions: 4-byte count and 1-byte elements.
    Distributions,
    /// An array of rank triples (`MPI_Group_range_incl`): a count, then that many arrays
    /// of `int`.
    Ranges,
}

impl Kind {
    /// Whether the value is an array (or a string), whose stored count also sets the
    /// argument [`Arg::len`] names.
    pub fn is_array(self) -> bool {
        !matches!(
            self,
            Kind::Int
                | Kind::Argc
                | Kind::Dest
                | Kind::Source
                | Kind::Tag
                | Kind::Int64
                | Kind::Function
                | Kind::Comm
                | Kind::Datatype
                | Kind::Group
                | Kind::Info
                | Kind::File
                | Kind::Win
                | Kind::Errhandler
                | Kind::Keyval
                | Kind::Op
                | Kind::Combiner
                | Kind::Comparison
                | Kind::Filemode
                | Kind::Locktype
                | Kind::Ordering
                | Kind::Threadlevel
                | Kind::Topology
                | Kind::Typeclass
                | Kind::Whence
                | Kind::WinAssert
                | Kind::Request
                | Kind::IoRequest
                | Kind::Status
        )
    }
}

/// No argument (for [`Arg::len`] and [`Arg::at_root`]).
pub const NONE: u8 = u8::MAX;

/// One argument of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arg {
    /// Its name as `dumpi2ascii` prints it.
    pub name: &'static str,
    /// How it is stored and printed.
    pub kind: Kind,
    /// For arrays, the index of the argument holding the length to print ([`NONE`]
    /// when the array prints its own count).
    pub len: u8,
    /// When not [`NONE`]: the argument is stored only when the argument at this index
    /// (the caller's rank) equals the one at [`Arg::root`] (the root's rank).
    pub rank: u8,
    /// The root's rank argument, with [`Arg::rank`].
    pub root: u8,
}

impl Arg {
    /// The index of the argument holding this array's length, if any.
    pub fn len_arg(&self) -> Option<usize> {
        (self.len != NONE).then_some(self.len as usize)
    }

    /// The (caller rank, root rank) arguments whose equality decides whether this one is
    /// stored, if it is conditional.
    pub fn root_condition(&self) -> Option<(usize, usize)> {
        (self.rank != NONE).then_some((self.rank as usize, self.root as usize))
    }
}

/// The layout of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLayout {
    /// The call's name as `dumpi2ascii` prints it (`MPI_Send`, `MPIO_Wait`,
    /// `Function_enter`).
    pub name: &'static str,
    /// The arguments in stored order.
    pub args: &'static [Arg],
    /// The order in which `dumpi2ascii` prints them (indices into `args`), when it
    /// differs from the stored order.
    pub shown: Option<&'static [u8]>,
    /// False for the labels that never start a record.
    pub recorded: bool,
}

impl CallLayout {
    /// The index of the argument called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.args.iter().position(|a| a.name == name)
    }

    /// The argument indices in printing order.
    pub fn print_order(&self) -> impl Iterator<Item = usize> + '_ {
        let stored = (self.shown.is_none()).then_some(0..self.args.len());
        let shown = self.shown.map(|s| s.iter().map(|&i| i as usize));
        stored
            .into_iter()
            .flatten()
            .chain(shown.into_iter().flatten())
    }

    const fn shown(mut self, order: &'static [u8]) -> CallLayout {
        self.shown = Some(order);
        self
    }
}

const fn a(name: &'static str, kind: Kind) -> Arg {
    Arg {
        name,
        kind,
        len: NONE,
        rank: NONE,
        root: NONE,
    }
}

impl Arg {
    const fn len(mut self, index: u8) -> Arg {
        self.len = index;
        self
    }

    const fn at_root(mut self, rank: u8, root: u8) -> Arg {
        self.rank = rank;
        self.root = root;
        self
    }
}

const fn call(name: &'static str, args: &'static [Arg]) -> CallLayout {
    CallLayout {
        name,
        args,
        shown: None,
        recorded: true,
    }
}

const fn unrecorded(name: &'static str) -> CallLayout {
    CallLayout {
        name,
        args: &[],
        shown: None,
        recorded: false,
    }
}

/// The label of `MPI_ALL_FUNCTIONS`: the footer holds counts for labels 0 to this one.
pub const ALL_FUNCTIONS: u16 = 290;
/// The label of `Function_enter`.
pub const FUNCTION_ENTER: u16 = 291;
/// The label of `Function_exit`.
pub const FUNCTION_EXIT: u16 = 292;
/// The label that ends the call stream.
pub const END_OF_STREAM: u16 = 293;

/// The layout of the call with function label `label`, if the format defines one.
pub fn layout(label: u16) -> Option<&'static CallLayout> {
    CALLS.get(label as usize)
}

use Kind::*;

/// Every call, indexed by function label.
#[rustfmt::skip]
pub static CALLS: [CallLayout; 293] = [
    /*   0 */ call("MPI_Send", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm)]),
    /*   1 */ call("MPI_Recv", &[a("count", Int), a("datatype", Datatype), a("source", Source), a("tag", Tag), a("comm", Comm), a("status", Status)]),
    /*   2 */ call("MPI_Get_count", &[a("status", Status), a("datatype", Datatype), a("count", Int)]),
    /*   3 */ call("MPI_Bsend", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm)]),
    /*   4 */ call("MPI_Ssend", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm)]),
    /*   5 */ call("MPI_Rsend", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm)]),
    /*   6 */ call("MPI_Buffer_attach", &[a("size", Int)]),
    /*   7 */ call("MPI_Buffer_detach", &[a("size", Int)]),
    /*   8 */ call("MPI_Isend", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Int), a("comm", Comm), a("request", Request)]),
    /*   9 */ call("MPI_Ibsend", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  10 */ call("MPI_Issend", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  11 */ call("MPI_Irsend", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  12 */ call("MPI_Irecv", &[a("count", Int), a("datatype", Datatype), a("source", Source), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  13 */ call("MPI_Wait", &[a("request", Request), a("status", Status)]),
    /*  14 */ call("MPI_Test", &[a("request", Request), a("flag", Int), a("status", Status)]),
    /*  15 */ call("MPI_Request_free", &[a("request", Request)]),
    /*  16 */ call("MPI_Waitany", &[a("count", Int), a("requests", Requests).len(0), a("index", Int), a("status", Status)]),
    /*  17 */ call("MPI_Testany", &[a("count", Int), a("requests", Requests).len(0), a("index", Int), a("flag", Int), a("status", Status)]),
    /*  18 */ call("MPI_Waitall", &[a("count", Int), a("requests", Requests).len(0), a("statuses", Statuses).len(0)]),
    /*  19 */ call("MPI_Testall", &[a("count", Int), a("requests", Requests).len(0), a("flag", Int), a("statuses", Statuses).len(0)]),
    /*  20 */ call("MPI_Waitsome", &[a("count", Int), a("requests", Requests).len(0), a("outcount", Int), a("indices", Ints).len(2), a("statuses", Statuses).len(2)]),
    /*  21 */ call("MPI_Testsome", &[a("count", Int), a("requests", Requests).len(0), a("outcount", Int), a("indices", Ints).len(2), a("statuses", Statuses).len(2)]),
    /*  22 */ call("MPI_Iprobe", &[a("source", Source), a("tag", Tag), a("comm", Comm), a("flag", Int), a("status", Status)]),
    /*  23 */ call("MPI_Probe", &[a("source", Source), a("tag", Tag), a("comm", Comm), a("status", Status)]),
    /*  24 */ call("MPI_Cancel", &[a("request", Request)]),
    /*  25 */ call("MPI_Test_cancelled", &[a("status", Status), a("cancelled", Int)]),
    /*  26 */ call("MPI_Send_init", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  27 */ call("MPI_Bsend_init", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  28 */ call("MPI_Ssend_init", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  29 */ call("MPI_Rsend_init", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  30 */ call("MPI_Recv_init", &[a("count", Int), a("datatype", Datatype), a("source", Source), a("tag", Tag), a("comm", Comm), a("request", Request)]),
    /*  31 */ call("MPI_Start", &[a("request", Request)]),
    /*  32 */ call("MPI_Startall", &[a("count", Int), a("requests", Requests).len(0)]),
    /*  33 */ call("MPI_Sendrecv", &[a("sendcount", Int), a("sendtype", Datatype), a("dest", Dest), a("sendtag", Tag), a("recvcount", Int), a("recvtype", Datatype), a("source", Source), a("recvtag", Tag), a("comm", Comm), a("status", Status)]),
    /*  34 */ call("MPI_Sendrecv_replace", &[a("count", Int), a("datatype", Datatype), a("dest", Dest), a("sendtag", Tag), a("source", Source), a("recvtag", Tag), a("comm", Comm), a("status", Status)]),
    /*  35 */ call("MPI_Type_contiguous", &[a("count", Int), a("oldtype", Datatype), a("newtype", Datatype)]),
    /*  36 */ call("MPI_Type_vector", &[a("count", Int), a("blocklength", Int), a("stride", Int), a("oldtype", Datatype), a("newtype", Datatype)]),
    /*  37 */ call("MPI_Type_hvector", &[a("count", Int), a("blocklength", Int), a("stride", Int), a("oldtype", Datatype), a("newtype", Datatype)]),
    /*  38 */ call("MPI_Type_indexed", &[a("count", Int), a("lengths", Ints).len(0), a("indices", Ints).len(0), a("oldtype", Datatype), a("newtype", Datatype)]),
    /*  39 */ call("MPI_Type_hindexed", &[a("count", Int), a("lengths", Ints).len(0), a("indices", Ints).len(0), a("oldtype", Datatype), a("newtype", Datatype)]),
    /*  40 */ call("MPI_Type_struct", &[a("count", Int), a("lengths", Ints).len(0), a("indices", IntsSince069).len(0), a("oldtypes", Datatypes).len(0), a("newtype", Datatype)]),
    /*  41 */ call("MPI_Address", &[a("address", Int)]),
    /*  42 */ call("MPI_Type_extent", &[a("datatype", Datatype), a("extent", Int)]),
    /*  43 */ call("MPI_Type_size", &[a("datatype", Datatype), a("size", Int)]),
    /*  44 */ call("MPI_Type_lb", &[a("datatype", Datatype), a("lb", Int)]),
    /*  45 */ call("MPI_Type_ub", &[a("datatype", Datatype), a("ub", Int)]),
    /*  46 */ call("MPI_Type_commit", &[a("datatype", Datatype)]),
    /*  47 */ call("MPI_Type_free", &[a("datatype", Datatype)]),
    /*  48 */ call("MPI_Get_elements", &[a("status", Status), a("datatype", Datatype), a("elements", Int)]),
    /*  49 */ call("MPI_Pack", &[a("incount", Int), a("datatype", Datatype), a("outcount", Int), a("position.in", Int), a("position.out", Int), a("comm", Comm)]),
    /*  50 */ call("MPI_Unpack", &[a("incount", Int), a("position.in", Int), a("position.out", Int), a("outcount", Int), a("datatype", Datatype), a("comm", Comm)]),
    /*  51 */ call("MPI_Pack_size", &[a("incount", Int), a("datatype", Datatype), a("comm", Comm), a("size", Int)]),
    /*  52 */ call("MPI_Barrier", &[a("comm", Comm)]),
    /*  53 */ call("MPI_Bcast", &[a("count", Int), a("datatype", Datatype), a("root", Int), a("comm", Comm)]),
    /*  54 */ call("MPI_Gather", &[a("commrank", Int), a("sendcount", Int), a("sendtype", Datatype), a("root", Int), a("comm", Comm), a("recvcount", Int).at_root(0, 3), a("recvtype", Datatype).at_root(0, 3)]).shown(&[0, 1, 2, 5, 6, 3, 4]),
    /*  55 */ call("MPI_Gatherv", &[a("commrank", Int), a("commsize", Int), a("sendcount", Int), a("sendtype", Datatype), a("root", Int), a("comm", Comm), a("recvcounts", Ints).len(1).at_root(0, 4), a("displs", Ints).len(1).at_root(0, 4), a("recvtype", Datatype)]).shown(&[0, 1, 2, 3, 6, 7, 8, 4, 5]),
    /*  56 */ call("MPI_Scatter", &[a("commrank", Int), a("recvcount", Int), a("recvtype", Datatype), a("root", Int), a("comm", Comm), a("sendcount", Int).at_root(0, 3), a("sendtype", Datatype).at_root(0, 3)]).shown(&[0, 5, 6, 1, 2, 3, 4]),
    /*  57 */ call("MPI_Scatterv", &[a("commrank", Int), a("commsize", Int), a("sendtype", Datatype), a("recvcount", Int), a("recvtype", Datatype), a("root", Int), a("comm", Comm), a("sendcounts", Ints).len(1).at_root(0, 5), a("displs", Ints).len(1).at_root(0, 5)]).shown(&[0, 1, 7, 8, 2, 3, 4, 5, 6]),
    /*  58 */ call("MPI_Allgather", &[a("sendcount", Int), a("sendtype", Datatype), a("recvcount", Int), a("recvtype", Datatype), a("comm", Comm)]),
    /*  59 */ call("MPI_Allgatherv", &[a("commsize", Int), a("sendcount", Int), a("sendtype", Datatype), a("recvcounts", Ints).len(0), a("displs", Ints).len(0), a("recvtype", Datatype), a("comm", Comm)]),
    /*  60 */ call("MPI_Alltoall", &[a("sendcount", Int), a("sendtype", Datatype), a("recvcount", Int), a("recvtype", Datatype), a("comm", Comm)]),
    /*  61 */ call("MPI_Alltoallv", &[a("commsize", Int), a("sendcounts", Ints).len(0), a("senddispls", Ints).len(0), a("sendtype", Datatype), a("recvcounts", Ints).len(0), a("recvdispls", Ints).len(0), a("recvtype", Datatype), a("comm", Comm)]),
    /*  62 */ call("MPI_Reduce", &[a("count", Int), a("datatype", Datatype), a("op", Op), a("root", Int), a("comm", Comm)]),
    /*  63 */ call("MPI_Op_create", &[a("commute", Int), a("op", Op)]),
    /*  64 */ call("MPI_Op_free", &[a("op", Op)]),
    /*  65 */ call("MPI_Allreduce", &[a("count", Int), a("datatype", Datatype), a("op", Op), a("comm", Comm)]),
    /*  66 */ call("MPI_Reduce_scatter", &[a("commsize", Int), a("recvcounts", Ints).len(0), a("datatype", Datatype), a("op", Op), a("comm", Comm)]),
    /*  67 */ call("MPI_Scan", &[a("count", Int), a("datatype", Datatype), a("op", Op), a("comm", Comm)]),
    /*  68 */ call("MPI_Group_size", &[a("group", Group), a("size", Int)]),
    /*  69 */ call("MPI_Group_rank", &[a("group", Group), a("rank", Int)]),
    /*  70 */ call("MPI_Group_translate_ranks", &[a("group1", Group), a("count", Int), a("ranks1", Ints).len(1), a("group2", Group), a("ranks2", Ints).len(1)]),
    /*  71 */ call("MPI_Group_compare", &[a("group1", Group), a("group2", Group), a("result", Comparison)]),
    /*  72 */ call("MPI_Comm_group", &[a("comm", Comm), a("group", Group)]),
    /*  73 */ call("MPI_Group_union", &[a("group1", Group), a("group2", Group), a("newgroup", Group)]),
    /*  74 */ call("MPI_Group_intersection", &[a("group1", Group), a("group2", Group), a("newgroup", Group)]),
    /*  75 */ call("MPI_Group_difference", &[a("group1", Group), a("group2", Group), a("newgroup", Group)]),
    /*  76 */ call("MPI_Group_incl", &[a("group", Group), a("count", Int), a("ranks", Ints).len(1), a("newgroup", Group)]),
    /*  77 */ call("MPI_Group_excl", &[a("group", Group), a("count", Int), a("ranks", Ints).len(1), a("newgroup", Group)]),
    /*  78 */ call("MPI_Group_range_incl", &[a("group", Group), a("count", Int), a("ranges", Ranges).len(1), a("newgroup", Group)]),
    /*  79 */ call("MPI_Group_range_excl", &[a("group", Group), a("count", Int), a("ranges", Ranges).len(1), a("newgroup", Group)]),
    /*  80 */ call("MPI_Group_free", &[a("group", Group)]),
    /*  81 */ call("MPI_Comm_size", &[a("comm", Comm), a("size", Int)]),
    /*  82 */ call("MPI_Comm_rank", &[a("comm", Comm), a("rank", Int)]),
    /*  83 */ call("MPI_Comm_compare", &[a("comm1", Comm), a("comm2", Comm), a("result", Comparison)]),
    /*  84 */ call("MPI_Comm_dup", &[a("oldcomm", Comm), a("newcomm", Comm)]),
    /*  85 */ call("MPI_Comm_create", &[a("oldcomm", Comm), a("group", Group), a("newcomm", Comm)]),
    /*  86 */ call("MPI_Comm_split", &[a("oldcomm", Comm), a("color", Int), a("key", Int), a("newcomm", Comm)]),
    /*  87 */ call("MPI_Comm_free", &[a("comm", Comm)]),
    /*  88 */ call("MPI_Comm_test_inter", &[a("comm", Comm), a("inter", Int)]),
    /*  89 */ call("MPI_Comm_remote_size", &[a("comm", Comm), a("size", Int)]),
    /*  90 */ call("MPI_Comm_remote_group", &[a("comm", Comm), a("group", Group)]),
    /*  91 */ call("MPI_Intercomm_create", &[a("localcomm", Comm), a("localleader", Int), a("remotecomm", Comm), a("remoteleader", Int), a("tag", Tag), a("newcomm", Comm)]),
    /*  92 */ call("MPI_Intercomm_merge", &[a("comm", Comm), a("high", Int), a("newcomm", Comm)]),
    /*  93 */ call("MPI_Keyval_create", &[a("key", Keyval)]),
    /*  94 */ call("MPI_Keyval_free", &[a("key", Keyval)]),
    /*  95 */ call("MPI_Attr_put", &[a("comm", Comm), a("key", Int)]),
    /*  96 */ call("MPI_Attr_get", &[a("comm", Comm), a("key", Int), a("flag", Int)]),
    /*  97 */ call("MPI_Attr_delete", &[a("comm", Comm), a("key", Int)]),
    /*  98 */ call("MPI_Topo_test", &[a("comm", Comm), a("topo", Topology)]),
    /*  99 */ call("MPI_Cart_create", &[a("oldcomm", Comm), a("ndim", Int), a("dims", Ints).len(1), a("periods", Ints).len(1), a("reorder", Int), a("newcomm", Comm)]),
    /* 100 */ call("MPI_Dims_create", &[a("nodes", Int), a("ndim", Int), a("dims.in", Ints).len(1), a("dims.out", Ints).len(1)]),
    /* 101 */ call("MPI_Graph_create", &[a("numedges", Int), a("oldcomm", Comm), a("nodes", Int), a("index", Ints).len(2), a("edges", Ints).len(0), a("reorder", Int), a("newcomm", Comm)]),
    /* 102 */ call("MPI_Graphdims_get", &[a("comm", Comm), a("nodes", Int), a("edges", Int)]),
    /* 103 */ call("MPI_Graph_get", &[a("totedges", Int), a("totnodes", Int), a("comm", Comm), a("maxindex", Int), a("maxedges", Int), a("index", Ints).len(1), a("edges", Ints).len(0)]),
    /* 104 */ call("MPI_Cartdim_get", &[a("comm", Comm), a("ndim", Int)]),
    /* 105 */ call("MPI_Cart_get", &[a("ndim", Int), a("comm", Comm), a("maxdims", Int), a("dims", Ints).len(0), a("periods", Ints).len(0), a("coords", IntsSince068).len(0)]),
    /* 106 */ call("MPI_Cart_rank", &[a("ndim", Int), a("comm", Comm), a("coords", Ints).len(0), a("rank", Int)]),
    /* 107 */ call("MPI_Cart_coords", &[a("ndim", Int), a("comm", Comm), a("rank", Int), a("maxdims", Int), a("coords", Ints).len(0)]),
    /* 108 */ call("MPI_Graph_neighbors_count", &[a("comm", Comm), a("rank", Int), a("nneigh", Int)]),
    /* 109 */ call("MPI_Graph_neighbors", &[a("nneigh", Int), a("comm", Comm), a("rank", Int), a("maxneighbors", Int), a("neighbors", Ints).len(0)]),
    /* 110 */ call("MPI_Cart_shift", &[a("comm", Comm), a("direction", Int), a("displ", Int), a("source", Source), a("dest", Dest)]),
    /* 111 */ call("MPI_Cart_sub", &[a("ndim", Int), a("oldcomm", Comm), a("remain_dims", Ints).len(0), a("newcomm", Comm)]),
    /* 112 */ call("MPI_Cart_map", &[a("comm", Comm), a("ndim", Int), a("dims", Ints).len(1), a("period", Ints).len(1), a("newrank", Int)]),
    /* 113 */ call("MPI_Graph_map", &[a("numedges", Int), a("comm", Comm), a("nodes", Int), a("index", Ints).len(2), a("edges", Ints).len(0), a("newrank", Int)]),
    /* 114 */ call("MPI_Get_processor_name", &[a("name", Text).len(1), a("resultlen", Int)]),
    /* 115 */ call("MPI_Get_version", &[a("version", Int), a("subversion", Int)]),
    /* 116 */ call("MPI_Errhandler_create", &[a("errhandler", Errhandler)]),
    /* 117 */ call("MPI_Errhandler_set", &[a("comm", Comm), a("errhandler", Errhandler)]),
    /* 118 */ call("MPI_Errhandler_get", &[a("comm", Comm), a("errhandler", Errhandler)]),
    /* 119 */ call("MPI_Errhandler_free", &[a("errhandler", Errhandler)]),
    /* 120 */ call("MPI_Error_string", &[a("errorcode", Int), a("errorstring", Text).len(2), a("resultlen", Int)]),
    /* 121 */ call("MPI_Error_class", &[a("errorcode", Int), a("errorclass", Int)]),
    /* 122 */ call("MPI_Wtime", &[]),
    /* 123 */ call("MPI_Wtick", &[]),
    /* 124 */ call("MPI_Init", &[a("argc", Argc), a("argv", Argv).len(0)]),
    /* 125 */ call("MPI_Finalize", &[]),
    /* 126 */ call("MPI_Initialized", &[a("result", Int)]),
    /* 127 */ call("MPI_Abort", &[a("comm", Comm), a("errorcode", Int)]),
    /* 128 */ unrecorded("MPI_Pcontrol"),
    /* 129 */ call("MPI_Close_port", &[a("portname", Text)]),
    /* 130 */ call("MPI_Comm_accept", &[a("portname", Text), a("info", Info), a("root", Int), a("oldcomm", Comm), a("newcomm", Comm)]),
    /* 131 */ call("MPI_Comm_connect", &[a("portname", Text), a("info", Info), a("root", Int), a("oldcomm", Comm), a("newcomm", Comm)]),
    /* 132 */ call("MPI_Comm_disconnect", &[a("comm", Comm)]),
    /* 133 */ call("MPI_Comm_get_parent", &[a("parent", Comm)]),
    /* 134 */ call("MPI_Comm_join", &[a("fd", Int), a("comm", Comm)]),
    /* 135 */ call("MPI_Comm_spawn", &[a("oldcommrank", Int), a("root", Int), a("oldcomm", Comm), a("newcomm", Comm), a("command", Text).at_root(0, 1), a("argv", TextsUntilNull).at_root(0, 1), a("maxprocs", Int).at_root(0, 1), a("info", Info).at_root(0, 1), a("errcodes", Ints).len(6).at_root(0, 1)]).shown(&[0, 4, 5, 6, 7, 1, 2, 3, 8]),
    /* 136 */ call("MPI_Comm_spawn_multiple", &[a("totprocs", Int), a("oldcommrank", Int), a("root", Int), a("oldcomm", Comm), a("newcomm", Comm), a("count", Int).at_root(1, 2), a("commands", Texts).len(5).at_root(1, 2), a("argvs", TextLists).len(5).at_root(1, 2), a("maxprocs", Ints).len(5).at_root(1, 2), a("info", Infos).len(5).at_root(1, 2), a("errcodes", Ints).len(0).at_root(1, 2)]).shown(&[0, 1, 5, 6, 7, 8, 9, 2, 3, 4, 10]),
    /* 137 */ call("MPI_Lookup_name", &[a("servicename", Text), a("info", Info), a("portname", Text)]),
    /* 138 */ call("MPI_Open_port", &[a("info", Info), a("portname", Text)]),
    /* 139 */ call("MPI_Publish_name", &[a("servicename", Text), a("info", Info), a("portname", Text)]),
    /* 140 */ call("MPI_Unpublish_name", &[a("servicename", Text), a("info", Info), a("portname", Text)]),
    /* 141 */ call("MPI_Accumulate", &[a("origincount", Int), a("origintype", Datatype), a("targetrank", Int), a("targetdisp", Int), a("targetcount", Int), a("targettype", Datatype), a("op", Op), a("win", Win)]),
    /* 142 */ call("MPI_Get", &[a("origincount", Int), a("origintype", Datatype), a("targetrank", Int), a("targetdisp", Int), a("targetcount", Int), a("targettype", Datatype), a("win", Win)]),
    /* 143 */ call("MPI_Put", &[a("origincount", Int), a("origintype", Datatype), a("targetrank", Int), a("targetdisp", Int), a("targetcount", Int), a("targettype", Datatype), a("win", Win)]),
    /* 144 */ call("MPI_Win_complete", &[a("win", Win)]),
    /* 145 */ call("MPI_Win_create", &[a("size", Int), a("dispunit", Int), a("info", Info), a("comm", Comm), a("win", Win)]),
    /* 146 */ call("MPI_Win_fence", &[a("assertion", WinAssert), a("win", Win)]),
    /* 147 */ call("MPI_Win_free", &[a("win", Win)]),
    /* 148 */ call("MPI_Win_get_group", &[a("win", Win), a("group", Group)]),
    /* 149 */ call("MPI_Win_lock", &[a("locktype", Locktype), a("winrank", Int), a("assertion", WinAssert), a("win", Win)]),
    /* 150 */ call("MPI_Win_post", &[a("group", Group), a("assertion", WinAssert), a("win", Win)]),
    /* 151 */ call("MPI_Win_start", &[a("group", Group), a("assertion", WinAssert), a("win", Win)]),
    /* 152 */ call("MPI_Win_test", &[a("win", Win), a("flag", Int)]),
    /* 153 */ call("MPI_Win_unlock", &[a("winrank", Int), a("win", Win)]),
    /* 154 */ call("MPI_Win_wait", &[a("win", Win)]),
    /* 155 */ call("MPI_Alltoallw", &[a("commsize", Int), a("sendcounts", Ints).len(0), a("senddispls", Ints).len(0), a("sendtypes", Datatypes).len(0), a("recvcounts", Ints).len(0), a("recvdispls", Ints).len(0), a("recvtypes", Datatypes).len(0), a("comm", Comm)]),
    /* 156 */ call("MPI_Exscan", &[a("count", Int), a("datatype", Datatype), a("op", Op), a("comm", Comm)]),
    /* 157 */ call("MPI_Add_error_class", &[a("errorclass", Int)]),
    /* 158 */ call("MPI_Add_error_code", &[a("errorclass", Int), a("errorcode", Int)]),
    /* 159 */ call("MPI_Add_error_string", &[a("errorcode", Int), a("errorstring", Text)]),
    /* 160 */ call("MPI_Comm_call_errhandler", &[a("comm", Comm), a("errorcode", Int)]),
    /* 161 */ call("MPI_Comm_create_keyval", &[a("keyval", Keyval)]),
    /* 162 */ call("MPI_Comm_delete_attr", &[a("comm", Comm), a("keyval", Keyval)]),
    /* 163 */ call("MPI_Comm_free_keyval", &[a("keyval", Keyval)]),
    /* 164 */ call("MPI_Comm_get_attr", &[a("comm", Comm), a("keyval", Keyval), a("flag", Int)]),
    /* 165 */ call("MPI_Comm_get_name", &[a("comm", Comm), a("name", Text).len(2), a("resultlen", Int)]),
    /* 166 */ call("MPI_Comm_set_attr", &[a("comm", Comm), a("keyval", Keyval)]),
    /* 167 */ call("MPI_Comm_set_name", &[a("comm", Comm), a("name", Text)]),
    /* 168 */ call("MPI_File_call_errhandler", &[a("file", File), a("errorcode", Int)]),
    /* 169 */ call("MPI_Grequest_complete", &[a("request", Request)]),
    /* 170 */ call("MPI_Grequest_start", &[a("request", Request)]),
    /* 171 */ call("MPI_Init_thread", &[a("argc", Int), a("argv", Argv).len(0), a("required", Threadlevel), a("provided", Threadlevel)]),
    /* 172 */ call("MPI_Is_thread_main", &[a("flag", Int)]),
    /* 173 */ call("MPI_Query_thread", &[a("supported", Threadlevel)]),
    /* 174 */ call("MPI_Status_set_cancelled", &[a("status", Status), a("flag", Int)]),
    /* 175 */ call("MPI_Status_set_elements", &[a("status", Status), a("datatype", Datatype), a("count", Int)]),
    /* 176 */ call("MPI_Type_create_keyval", &[a("keyval", Keyval)]),
    /* 177 */ call("MPI_Type_delete_attr", &[a("datatype", Datatype), a("keyval", Keyval)]),
    /* 178 */ call("MPI_Type_dup", &[a("oldtype", Datatype), a("newtype", Datatype)]),
    /* 179 */ call("MPI_Type_free_keyval", &[a("keyval", Keyval)]),
    /* 180 */ call("MPI_Type_get_attr", &[a("datatype", Datatype), a("keyval", Keyval), a("flag", Int)]),
    /* 181 */ call("MPI_Type_get_contents", &[a("numdatatypes", Int), a("numaddresses", Int), a("numintegers", Int), a("datatype", Datatype), a("maxintegers", Int), a("maxaddresses", Int), a("maxdatatypes", Int), a("arrintegers", Ints).len(2), a("arraddresses", Ints).len(1), a("arrdatatypes", Datatypes).len(0)]),
    /* 182 */ call("MPI_Type_get_envelope", &[a("datatype", Datatype), a("numintegers", Int), a("numaddresses", Int), a("numdatatypes", Int), a("combiner", Combiner)]),
    /* 183 */ call("MPI_Type_get_name", &[a("datatype", Datatype), a("name", Text), a("resultlen", Int)]),
    /* 184 */ call("MPI_Type_set_attr", &[a("datatype", Datatype), a("keyval", Keyval)]),
    /* 185 */ call("MPI_Type_set_name", &[a("datatype", Datatype), a("name", Text)]),
    /* 186 */ call("MPI_Type_match_size", &[a("typeclass", Typeclass), a("size", Int), a("datatype", Datatype)]),
    /* 187 */ call("MPI_Win_call_errhandler", &[a("win", Win), a("errorcode", Int)]),
    /* 188 */ call("MPI_Win_create_keyval", &[a("keyval", Keyval)]),
    /* 189 */ call("MPI_Win_delete_attr", &[a("win", Win), a("keyval", Keyval)]),
    /* 190 */ call("MPI_Win_free_keyval", &[a("keyval", Keyval)]),
    /* 191 */ call("MPI_Win_get_attr", &[a("win", Win), a("keyval", Keyval), a("flag", Int)]),
    /* 192 */ call("MPI_Win_get_name", &[a("win", Win), a("name", Text), a("resultlen", Int)]),
    /* 193 */ call("MPI_Win_set_attr", &[a("win", Win), a("keyval", Keyval)]),
    /* 194 */ call("MPI_Win_set_name", &[a("win", Win), a("name", Text)]),
    /* 195 */ call("MPI_Alloc_mem", &[a("size", Int), a("info", Info)]),
    /* 196 */ call("MPI_Comm_create_errhandler", &[a("errhandler", Errhandler)]),
    /* 197 */ call("MPI_Comm_get_errhandler", &[a("comm", Comm), a("errhandler", Errhandler)]),
    /* 198 */ call("MPI_Comm_set_errhandler", &[a("comm", Comm), a("errhandler", Errhandler)]),
    /* 199 */ call("MPI_File_create_errhandler", &[a("errhandler", Errhandler)]),
    /* 200 */ call("MPI_File_get_errhandler", &[a("file", File), a("errhandler", Errhandler)]),
    /* 201 */ call("MPI_File_set_errhandler", &[a("file", File), a("errhandler", Errhandler)]),
    /* 202 */ call("MPI_Finalized", &[a("flag", Int)]),
    /* 203 */ call("MPI_Free_mem", &[]),
    /* 204 */ call("MPI_Get_address", &[a("address", Int)]),
    /* 205 */ call("MPI_Info_create", &[a("info", Info)]),
    /* 206 */ call("MPI_Info_delete", &[a("info", Info), a("key", Text)]),
    /* 207 */ call("MPI_Info_dup", &[a("oldinfo", Info), a("newinfo", Info)]),
    /* 208 */ call("MPI_Info_free", &[a("info", Info)]),
    /* 209 */ call("MPI_Info_get", &[a("info", Info), a("key", Text), a("valuelength", Int), a("value", Text), a("flag", Int)]),
    /* 210 */ call("MPI_Info_get_nkeys", &[a("info", Info), a("nkeys", Int)]),
    /* 211 */ call("MPI_Info_get_nthkey", &[a("info", Info), a("n", Int), a("key", Text)]),
    /* 212 */ call("MPI_Info_get_valuelen", &[a("info", Info), a("key", Text), a("valuelen", Int), a("flag", Int)]),
    /* 213 */ call("MPI_Info_set", &[a("info", Info), a("key", Text), a("value", Text)]),
    /* 214 */ call("MPI_Pack_external", &[a("datarep", Text), a("incount", Int), a("intype", Datatype), a("outcount", Int), a("position.in", Int), a("position.out", Int)]),
    /* 215 */ call("MPI_Pack_external_size", &[a("datarep", Text), a("incount", Int), a("datatype", Datatype), a("size", Int)]),
    /* 216 */ call("MPI_Request_get_status", &[a("request", Request), a("flag", Int), a("status", Status)]),
    /* 217 */ call("MPI_Type_create_darray", &[a("size", Int), a("rank", Int), a("ndims", Int), a("gsizes", Ints).len(2), a("distribs", Distributions).len(2), a("dargs", Ints).len(2), a("psizes", Ints).len(2), a("order", Ordering), a("oldtype", Datatype), a("newtype", Datatype)]),
    /* 218 */ call("MPI_Type_create_hindexed", &[a("count", Int), a("blocklengths", Ints).len(0), a("displacements", Ints).len(0), a("oldtype", Datatype), a("newtype", Datatype)]),
    /* 219 */ call("MPI_Type_create_hvector", &[a("count", Int), a("blocklength", Int), a("stride", Int), a("oldtype", Datatype), a("newtype", Datatype)]),
    /* 220 */ call("MPI_Type_create_indexed_block", &[a("count", Int), a("blocklength", Int), a("displacments", Ints).len(0), a("oldtype", Datatype), a("newtype", Datatype)]),
    /* 221 */ call("MPI_Type_create_resized", &[a("oldtype", Datatype), a("lb", Int), a("extent", Int), a("newtype", Datatype)]),
    /* 222 */ call("MPI_Type_create_struct", &[a("count", Int), a("blocklengths", Ints).len(0), a("displacements", Ints).len(0), a("oldtypes", Datatypes).len(0), a("newtype", Datatype)]),
    /* 223 */ call("MPI_Type_create_subarray", &[a("ndims", Int), a("sizes", Ints).len(0), a("subsizes", Ints).len(0), a("starts", Ints).len(0), a("order", Ordering), a("oldtype", Datatype), a("newtype", Datatype)]),
    /* 224 */ call("MPI_Type_get_extent", &[a("datatype", Datatype), a("lb", Int), a("extent", Int)]),
    /* 225 */ call("MPI_Type_get_true_extent", &[a("datatype", Datatype), a("lb", Int), a("extent", Int)]),
    /* 226 */ call("MPI_Unpack_external", &[a("datarep", Text), a("insize", Int), a("position.in", Int), a("position.out", Int), a("outcount", Int), a("datatype", Datatype)]),
    /* 227 */ call("MPI_Win_create_errhandler", &[a("errhandler", Errhandler)]),
    /* 228 */ call("MPI_Win_get_errhandler", &[a("win", Win), a("errhandler", Errhandler)]),
    /* 229 */ call("MPI_Win_set_errhandler", &[a("win", Win), a("errhandler", Errhandler)]),
    /* 230 */ call("MPI_File_open", &[a("comm", Comm), a("filename", Text), a("amode", Filemode), a("info", Info), a("file", File)]),
    /* 231 */ call("MPI_File_close", &[a("file", File)]),
    /* 232 */ call("MPI_File_delete", &[a("filename", Text), a("info", Info)]),
    /* 233 */ call("MPI_File_set_size", &[a("file", File), a("size", Int64)]),
    /* 234 */ call("MPI_File_preallocate", &[a("file", File), a("size", Int64)]),
    /* 235 */ call("MPI_File_get_size", &[a("file", File), a("size", Int64)]),
    /* 236 */ call("MPI_File_get_group", &[a("file", File), a("group", Group)]),
    /* 237 */ call("MPI_File_get_amode", &[a("file", File), a("amode", Filemode)]),
    /* 238 */ call("MPI_File_set_info", &[a("file", File), a("info", Info)]),
    /* 239 */ call("MPI_File_get_info", &[a("file", File), a("info", Info)]),
    /* 240 */ call("MPI_File_set_view", &[a("file", File), a("offset", Int64), a("hosttype", Datatype), a("filetype", Datatype), a("datarep", Text), a("info", Info)]),
    /* 241 */ call("MPI_File_get_view", &[a("file", File), a("offset", Int64), a("hosttype", Datatype), a("filetype", Datatype), a("datarep", Text)]),
    /* 242 */ call("MPI_File_read_at", &[a("file", File), a("offset", Int64), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 243 */ call("MPI_File_read_at_all", &[a("file", File), a("offset", Int64), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 244 */ call("MPI_File_write_at", &[a("file", File), a("offset", Int64), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 245 */ call("MPI_File_write_at_all", &[a("file", File), a("offset", Int64), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 246 */ call("MPI_File_iread_at", &[a("file", File), a("offset", Int64), a("count", Int), a("datatype", Datatype), a("request", IoRequest)]),
    /* 247 */ call("MPI_File_iwrite_at", &[a("file", File), a("offset", Int64), a("count", Int), a("datatype", Datatype), a("request", IoRequest)]),
    /* 248 */ call("MPI_File_read", &[a("file", File), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 249 */ call("MPI_File_read_all", &[a("file", File), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 250 */ call("MPI_File_write", &[a("file", File), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 251 */ call("MPI_File_write_all", &[a("file", File), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 252 */ call("MPI_File_iread", &[a("file", File), a("count", Int), a("datatype", Datatype), a("request", IoRequest)]),
    /* 253 */ call("MPI_File_iwrite", &[a("file", File), a("count", Int), a("datatype", Datatype), a("request", IoRequest)]),
    /* 254 */ call("MPI_File_seek", &[a("file", File), a("offset", Int64), a("whence", Whence)]),
    /* 255 */ call("MPI_File_get_position", &[a("file", File), a("offset", Int64)]),
    /* 256 */ call("MPI_File_get_byte_offset", &[a("file", File), a("offset", Int64), a("bytes", Int64)]),
    /* 257 */ call("MPI_File_read_shared", &[a("file", File), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 258 */ call("MPI_File_write_shared", &[a("file", File), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 259 */ call("MPI_File_iread_shared", &[a("file", File), a("count", Int), a("datatype", Datatype), a("request", IoRequest)]),
    /* 260 */ call("MPI_File_iwrite_shared", &[a("file", File), a("count", Int), a("datatype", Datatype), a("request", IoRequest)]),
    /* 261 */ call("MPI_File_read_ordered", &[a("file", File), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 262 */ call("MPI_File_write_ordered", &[a("file", File), a("count", Int), a("datatype", Datatype), a("status", Status)]),
    /* 263 */ call("MPI_File_seek_shared", &[a("file", File), a("offset", Int64), a("whence", Whence)]),
    /* 264 */ call("MPI_File_get_position_shared", &[a("file", File), a("offset", Int64)]),
    /* 265 */ call("MPI_File_read_at_all_begin", &[a("file", File), a("offset", Int64), a("count", Int), a("datatype", Datatype)]),
    /* 266 */ call("MPI_File_read_at_all_end", &[a("file", File), a("status", Status)]),
    /* 267 */ call("MPI_File_write_at_all_begin", &[a("file", File), a("offset", Int64), a("count", Int), a("datatype", Datatype)]),
    /* 268 */ call("MPI_File_write_at_all_end", &[a("file", File), a("status", Status)]),
    /* 269 */ call("MPI_File_read_all_begin", &[a("file", File), a("count", Int), a("datatype", Datatype)]),
    /* 270 */ call("MPI_File_read_all_end", &[a("file", File), a("status", Status)]),
    /* 271 */ call("MPI_File_write_all_begin", &[a("file", File), a("count", Int), a("datatype", Datatype)]),
    /* 272 */ call("MPI_File_write_all_end", &[a("file", File), a("status", Status)]),
    /* 273 */ call("MPI_File_read_ordered_begin", &[a("file", File), a("count", Int), a("datatype", Datatype)]),
    /* 274 */ call("MPI_File_read_ordered_end", &[a("file", File), a("status", Status)]),
    /* 275 */ call("MPI_File_write_ordered_begin", &[a("file", File), a("count", Int), a("datatype", Datatype)]),
    /* 276 */ call("MPI_File_write_ordered_end", &[a("file", File), a("status", Status)]),
    /* 277 */ call("MPI_File_get_type_extent", &[a("file", File), a("datatype", Datatype), a("extent", Int)]),
    /* 278 */ call("MPI_Register_datarep", &[a("name", Text)]),
    /* 279 */ call("MPI_File_set_atomicity", &[a("file", File), a("flag", Int)]),
    /* 280 */ call("MPI_File_get_atomicity", &[a("file", File), a("flag", Int)]),
    /* 281 */ call("MPI_File_sync", &[a("file", File)]),
    /* 282 */ call("MPIO_Test", &[a("request", IoRequest), a("flag", Int), a("status", Status)]),
    /* 283 */ call("MPIO_Wait", &[a("request", IoRequest), a("status", Status)]),
    /* 284 */ call("MPIO_Testall", &[a("count", Int), a("requests", IoRequests).len(0), a("flag", Int), a("statuses", Statuses).len(0)]),
    /* 285 */ call("MPIO_Waitall", &[a("count", Int), a("requests", IoRequests).len(0), a("statuses", Statuses).len(0)]),
    /* 286 */ call("MPIO_Testany", &[a("count", Int), a("requests", IoRequests).len(0), a("flag", Int), a("index", Int), a("statuses", Statuses).len(0)]).shown(&[0, 1, 3, 2, 4]),
    /* 287 */ call("MPIO_Waitany", &[a("count", Int), a("requests", IoRequests).len(0), a("index", Int), a("statuses", Statuses).len(0)]),
    /* 288 */ call("MPIO_Waitsome", &[a("count", Int), a("requests", IoRequests).len(0), a("outcount", Int), a("indices", Ints).len(2), a("statuses", Statuses).len(2)]),
    /* 289 */ call("MPIO_Testsome", &[a("count", Int), a("requests", IoRequests).len(0), a("outcount", Int), a("indices", Ints).len(2), a("statuses", Statuses).len(2)]),
    /* 290 */ unrecorded("MPI_ALL_FUNCTIONS"),
    /* 291 */ call("Function_enter", &[a("fn", Function)]),
    /* 292 */ call("Function_exit", &[a("fn", Function)]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_has_its_name_and_consistent_references() {
        assert_eq!(CALLS[0].name, "MPI_Send");
        assert_eq!(CALLS[124].name, "MPI_Init");
        assert_eq!(CALLS[289].name, "MPIO_Testsome");
        assert_eq!(CALLS[FUNCTION_ENTER as usize].name, "Function_enter");
        assert_eq!(CALLS[FUNCTION_EXIT as usize].name, "Function_exit");
        for call in &CALLS {
            let n = call.args.len();
            let mut order: Vec<usize> = call.print_order().collect();
            order.sort_unstable();
            assert_eq!(order, (0..n).collect::<Vec<_>>(), "{}", call.name);
            for (i, arg) in call.args.iter().enumerate() {
                if let Some(len) = arg.len_arg() {
                    assert!(len < n && arg.kind.is_array(), "{} {}", call.name, arg.name);
                    // The decoder reads argv's count before argv.
                    assert!(arg.kind != Kind::Argv || len < i, "{}", call.name);
                }
                if let Some((rank, root)) = arg.root_condition() {
                    // The decoder compares values it has already read.
                    assert!(rank < i && root < i, "{} {}", call.name, arg.name);
                }
            }
        }
        let recorded = CALLS.iter().filter(|c| c.recorded).count();
        assert_eq!(recorded, 291);
    }

    #[test]
    fn gather_stores_its_receive_side_at_the_root_only_and_prints_it_before_root() {
        let gather = layout(54).unwrap();
        assert_eq!(gather.name, "MPI_Gather");
        let recvcount = &gather.args[gather.index_of("recvcount").unwrap()];
        assert_eq!(recvcount.root_condition(), Some((0, 3)));
        let printed: Vec<&str> = gather.print_order().map(|i| gather.args[i].name).collect();
        assert_eq!(
            printed,
            [
                "commrank",
                "sendcount",
                "sendtype",
                "recvcount",
                "recvtype",
                "root",
                "comm"
            ]
        );
    }
}
