use super::resolve::cart_coords;
use super::*;

/// The tables of `size` ranks after `calls(rank, table)` on each.
fn traced(size: u32, calls: impl Fn(u32, &mut RankComms)) -> Vec<RankComms> {
    (0..size)
        .map(|rank| {
            let mut table = RankComms::new(format!("t-{rank:04}.bin"), rank, size);
            calls(rank, &mut table);
            table
        })
        .collect()
}

/// The members of the communicator `handle` names on `rank` at the end.
fn members_of(ranks: &[RankComms], comms: &Communicators, rank: u32, handle: Handle) -> Vec<u32> {
    let local = ranks[rank as usize].current(handle, 0).unwrap();
    comms.members(rank, local).unwrap().to_vec()
}

#[test]
fn world_and_self() {
    let ranks = traced(3, |_, _| {});
    let comms = resolve(&ranks).unwrap();
    assert_eq!(comms.world_rank(1, LocalComm::WORLD, 2), Some(2));
    assert_eq!(comms.world_rank(1, LocalComm::SELF, 0), Some(1));
    assert_eq!(comms.world_rank(2, LocalComm::SELF, 0), Some(2));
    assert_eq!(comms.world_rank(1, LocalComm::WORLD, 3), None);
    assert_eq!(comms.world_rank(1, LocalComm::WORLD, -1), None);
    assert_eq!(comms.len(), 4);
}

#[test]
fn split_orders_by_key_then_parent_rank() {
    // 6 ranks, colour r % 2, key -(r / 2) except rank 4 with key 5: colour 0 holds
    // 0 (key 0), 2 (key -1), 4 (key 5) → order 2, 0, 4; colour 1 holds 1 (0), 3 (-1),
    // 5 (-2) → 5, 3, 1.
    let ranks = traced(6, |r, t| {
        let key = if r == 4 { 5 } else { -(r as i32 / 2) };
        t.split(COMM_WORLD, r as i32 % 2, key, 4, 100).unwrap();
    });
    let comms = resolve(&ranks).unwrap();
    for r in [0, 2, 4] {
        assert_eq!(members_of(&ranks, &comms, r, 4), [2, 0, 4]);
    }
    for r in [1, 3, 5] {
        assert_eq!(members_of(&ranks, &comms, r, 4), [5, 3, 1]);
    }
    let local = ranks[3].current(4, 0).unwrap();
    assert_eq!(comms.world_rank(3, local, 0), Some(5));
    // Equal keys keep the parent's order.
    let ranks = traced(4, |_, t| t.split(COMM_WORLD, 0, 7, 4, 0).unwrap());
    assert_eq!(
        members_of(&ranks, &resolve(&ranks).unwrap(), 2, 4),
        [0, 1, 2, 3]
    );
}

#[test]
fn undefined_colour_gives_no_communicator_but_still_counts() {
    // Rank 0 passes MPI_UNDEFINED (null handle back); then all dup the world: the
    // dup is the second communicator call on the world for everyone.
    let ranks = traced(3, |r, t| {
        let new = if r == 0 { COMM_NULL } else { 4 };
        t.split(COMM_WORLD, 1, 0, new, 10).unwrap();
        t.dup(COMM_WORLD, 5, 20).unwrap();
    });
    let comms = resolve(&ranks).unwrap();
    assert_eq!(members_of(&ranks, &comms, 1, 4), [1, 2]);
    assert_eq!(members_of(&ranks, &comms, 0, 5), [0, 1, 2]);
    assert!(ranks[0].current(4, 0).is_err());
}

#[test]
fn nested_splits_dups_and_reused_handles() {
    // Split the world (8 ranks) into halves (r / 4), reversed (key -r); split each
    // half into pairs by (comm rank / 2); dup a pair; free the halves and reuse the
    // handle for a dup of the world.
    let ranks = traced(8, |r, t| {
        t.split(COMM_WORLD, r as i32 / 4, -(r as i32), 4, 0)
            .unwrap();
        // In the half, comm rank = 3 - (r % 4).
        let half_rank = 3 - (r as i32 % 4);
        t.split(4, half_rank / 2, 0, 5, 0).unwrap();
        t.dup(5, 6, 0).unwrap();
        t.free(4, 0).unwrap();
        t.dup(COMM_WORLD, 4, 0).unwrap();
    });
    let comms = resolve(&ranks).unwrap();
    // Half 0 in order 3, 2, 1, 0; pairs: comm ranks 0–1 → (3, 2), 2–3 → (1, 0).
    assert_eq!(members_of(&ranks, &comms, 2, 5), [3, 2]);
    assert_eq!(members_of(&ranks, &comms, 0, 6), [1, 0]);
    assert_eq!(members_of(&ranks, &comms, 4, 6), [5, 4]);
    assert_eq!(members_of(&ranks, &comms, 6, 6), [7, 6]);
    assert_eq!(members_of(&ranks, &comms, 6, 4), (0..8).collect::<Vec<_>>());
    // world, 8 selves, 2 halves, 4 pairs, 4 dups of pairs, 1 dup of the world.
    assert_eq!(comms.len(), 1 + 8 + 2 + 4 + 4 + 1);
}

#[test]
fn create_from_groups() {
    // 6 ranks. g3 = world group; g4 = incl [5, 1, 3]; g5 = excl of g4 [0] = [1, 3];
    // g6 = range_incl (0, 4, 2) of world = [0, 2, 4]; g7 = union(g5, g6) = [1, 3, 0,
    // 2, 4]; g8 = intersection(g7, g4) = [1, 3]; g9 = difference(g7, g5) = [0, 2, 4];
    // g10 = range_excl (5, 0, -2) of world = exclude 5, 3, 1 = [0, 2, 4].
    let ranks = traced(6, |r, t| {
        t.comm_group(COMM_WORLD, 3, 0).unwrap();
        t.group_pick(Pick::Incl, 3, &[5, 1, 3], 4, 0).unwrap();
        t.group_pick(Pick::Excl, 4, &[0], 5, 0).unwrap();
        t.group_range(Pick::Incl, 3, &[[0, 4, 2]], 6, 0).unwrap();
        t.group_set(SetOp::Union, 5, 6, 7, 0).unwrap();
        t.group_set(SetOp::Intersection, 7, 4, 8, 0).unwrap();
        t.group_set(SetOp::Difference, 7, 5, 9, 0).unwrap();
        t.group_range(Pick::Excl, 3, &[[5, 0, -2]], 10, 0).unwrap();
        let in_g4 = [5, 1, 3].contains(&r);
        t.create(COMM_WORLD, 4, if in_g4 { 11 } else { COMM_NULL }, 0)
            .unwrap();
        t.create(COMM_WORLD, 7, if r == 5 { COMM_NULL } else { 12 }, 0)
            .unwrap();
        t.create(COMM_WORLD, 9, if r % 2 == 0 { 13 } else { COMM_NULL }, 0)
            .unwrap();
        t.create(COMM_WORLD, 10, if r % 2 == 0 { 14 } else { COMM_NULL }, 0)
            .unwrap();
        t.create(
            COMM_WORLD,
            8,
            if r == 1 || r == 3 { 15 } else { COMM_NULL },
            0,
        )
        .unwrap();
    });
    let comms = resolve(&ranks).unwrap();
    assert_eq!(members_of(&ranks, &comms, 1, 11), [5, 1, 3]);
    assert_eq!(members_of(&ranks, &comms, 0, 12), [1, 3, 0, 2, 4]);
    assert_eq!(members_of(&ranks, &comms, 4, 13), [0, 2, 4]);
    assert_eq!(members_of(&ranks, &comms, 2, 14), [0, 2, 4]);
    assert_eq!(members_of(&ranks, &comms, 3, 15), [1, 3]);
}

#[test]
fn create_from_the_group_of_a_split_communicator() {
    // Split 4 ranks reversed, take that communicator's group, keep its ranks 0 and
    // 1 (world 3 and 2), create on the world.
    let ranks = traced(4, |r, t| {
        t.split(COMM_WORLD, 0, -(r as i32), 4, 0).unwrap();
        t.comm_group(4, 3, 0).unwrap();
        t.group_pick(Pick::Incl, 3, &[1, 0], 5, 0).unwrap();
        t.create(COMM_WORLD, 5, if r >= 2 { 6 } else { COMM_NULL }, 0)
            .unwrap();
    });
    let comms = resolve(&ranks).unwrap();
    assert_eq!(members_of(&ranks, &comms, 3, 6), [2, 3]);
}

#[test]
fn cartesian_sub_grids() {
    // A 2 x 3 grid of 6 ranks: rank = 3 row + column. Rows keep dimension 1,
    // columns dimension 0.
    let ranks = traced(6, |_, t| {
        t.cart_create(COMM_WORLD, &[2, 3], 4, 0).unwrap();
        t.cart_sub(4, &[false, true], 5, 0).unwrap();
        t.cart_sub(4, &[true, false], 6, 0).unwrap();
    });
    let comms = resolve(&ranks).unwrap();
    assert_eq!(members_of(&ranks, &comms, 4, 5), [3, 4, 5]);
    assert_eq!(members_of(&ranks, &comms, 1, 5), [0, 1, 2]);
    assert_eq!(members_of(&ranks, &comms, 4, 6), [1, 4]);
    assert_eq!(members_of(&ranks, &comms, 2, 6), [2, 5]);
    assert_eq!(comms.len(), 1 + 6 + 1 + 2 + 3);
    assert_eq!(cart_coords(5, &[2, 3]), [1, 2]);
    assert_eq!(cart_coords(7, &[2, 2, 2]), [1, 1, 1]);
    assert_eq!(cart_coords(2, &[2, 2, 2]), [0, 1, 0]);
}

#[test]
fn intercommunicators_are_not_translated() {
    let mut ranks = traced(2, |_, _| {});
    ranks[0].intercomm(4);
    let local = ranks[0].current(4, 0).unwrap();
    assert!(ranks[0].is_inter(local));
    let err = ranks[0].dup(4, 5, 77).unwrap_err();
    assert_eq!(err.byte, Some(77));
    assert!(err.message.contains("intercommunicator"), "{err}");
    ranks[1].intercomm(4);
    let comms = resolve(&ranks).unwrap();
    assert_eq!(comms.world_rank(0, local, 0), None);
}

#[test]
fn errors_name_the_file_and_byte() {
    // Rank 1 dups where rank 0 splits.
    let ranks = traced(2, |r, t| {
        if r == 0 {
            t.split(COMM_WORLD, 0, 0, 4, 40).unwrap();
        } else {
            t.dup(COMM_WORLD, 4, 48).unwrap();
        }
    });
    let err = resolve(&ranks).unwrap_err();
    assert_eq!((err.path.as_str(), err.byte), ("t-0001.bin", Some(48)));
    assert!(
        err.message
            .contains("MPI_Comm_dup here, but rank 0 made MPI_Comm_split"),
        "{err}"
    );
    // Rank 1 never makes the communicator.
    let ranks = traced(2, |r, t| {
        if r == 0 {
            t.dup(COMM_WORLD, 4, 40).unwrap();
        }
    });
    let err = resolve(&ranks).unwrap_err();
    assert_eq!((err.path.as_str(), err.byte), ("t-0000.bin", Some(40)));
    assert!(err.message.contains("not made by every member"), "{err}");
    // Handles that name nothing.
    let mut t = RankComms::new("t.bin", 0, 2);
    assert_eq!(
        t.dup(9, 4, 12).unwrap_err().to_string(),
        "t.bin: byte 12: communicator 9 is not defined here"
    );
    assert!(t.group_pick(Pick::Incl, 9, &[0], 4, 0).is_err());
    assert!(t.free(COMM_WORLD, 0).is_err());
    assert!(t.free(4, 0).is_err());
    assert!(t
        .cart_sub(COMM_WORLD, &[true], 5, 0)
        .unwrap_err()
        .message
        .contains("not Cartesian"));
    assert!(t.cart_create(COMM_WORLD, &[0, 2], 5, 0).is_err());
    assert!(t
        .group_range(Pick::Incl, GROUP_EMPTY, &[[0, 3, 0]], 5, 0)
        .is_err());
    assert!(t
        .group_range(Pick::Incl, GROUP_EMPTY, &[[0, 1_000_000, 1]], 5, 0)
        .is_err());
    // A group rank out of range, found when the communicator is made.
    let ranks = traced(2, |_, t| {
        t.comm_group(COMM_WORLD, 3, 0).unwrap();
        t.group_pick(Pick::Incl, 3, &[0, 2], 4, 0).unwrap();
        t.create(COMM_WORLD, 4, 5, 64).unwrap();
    });
    let err = resolve(&ranks).unwrap_err();
    assert_eq!(err.byte, Some(64));
    assert!(
        err.message.contains("group rank 2 outside a group of 2"),
        "{err}"
    );
    // A rank given a communicator its group does not hold.
    let ranks = traced(2, |_, t| {
        t.comm_group(COMM_WORLD, 3, 0).unwrap();
        t.group_pick(Pick::Incl, 3, &[1], 4, 0).unwrap();
        t.create(COMM_WORLD, 4, 5, 8).unwrap();
    });
    assert!(resolve(&ranks)
        .unwrap_err()
        .message
        .contains("does not hold it"));
}

#[test]
fn the_footer_tells_whether_a_file_makes_communicators() {
    let mut calls = vec![0u32; 200];
    let ignored = vec![0u32; 200];
    calls[1] = 5; // MPI_Send and friends do not count
    calls[40] = 7;
    assert!(!super::may_follow(&calls, &ignored));
    for label in [72u16, 86, 99, 111, 136] {
        let mut c = calls.clone();
        c[label as usize] = 1;
        assert!(super::may_follow(&c, &ignored), "{label}");
        let mut i = ignored.clone();
        i[label as usize] = 1;
        assert!(super::may_follow(&calls, &i), "{label} ignored");
    }
    // A short footer counts nothing beyond its end.
    assert!(!super::may_follow(&[0; 10], &[]));
}
