//! The MPI functions this library exports: each `MPI_X`, and its profiling name
//! `PMPI_X`, jumps to the C wrapper `orcs_wrap_MPI_X` (`interpose.c`), which records the
//! call and calls the MPI library's `PMPI_X`. The `PMPI_X` names catch the calls of
//! Fortran programs under Open MPI, whose Fortran bindings call `PMPI_X`.
//!
//! A Rust shared library exports only symbols defined in Rust, so each exported name is
//! a naked function here whose only instruction is a tail jump: the arguments, in
//! registers and on the stack as the caller left them (also those of the variadic
//! `MPI_Pcontrol`), reach the wrapper untouched, whatever MPI's handle types are.

/// Declares the C wrappers and exports a jump to each under its MPI and profiling names.
macro_rules! exports {
    ($($name:ident, $profiling_name:ident => $wrapper:ident),* $(,)?) => {
        extern "C" {
            $(fn $wrapper();)*
        }
        $(
            jump!($name => $wrapper);
            jump!($profiling_name => $wrapper);
        )*
    };
}

/// Exports `name` as a tail jump to `wrapper`.
macro_rules! jump {
    ($name:ident => $wrapper:ident) => {
        #[doc = concat!("`", stringify!($name), "`, recorded by `", stringify!($wrapper), "`.")]
        #[doc = ""]
        #[doc = "# Safety"]
        #[doc = "Called by MPI programs with the arguments MPI defines for this function."]
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $name() {
            #[cfg(target_arch = "x86_64")]
            core::arch::naked_asm!("jmp {}", sym $wrapper);
            #[cfg(target_arch = "aarch64")]
            core::arch::naked_asm!("b {}", sym $wrapper);
        }
    };
}

// One entry per wrapper that interpose.c defines for this MPI, listed by build.rs.
include!(concat!(env!("OUT_DIR"), "/exports.rs"));
