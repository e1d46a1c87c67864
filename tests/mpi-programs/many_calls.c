/* Calls many different MPI functions once or twice, so that a DUMPI trace of it holds
 * records of most argument layouts: point-to-point of every kind, requests, collectives
 * (v variants and non-blocking completion), communicators, groups, datatypes, one-sided
 * communication with fences, a little MPI-IO, attributes, names and Pcontrol.
 * Run with 4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, size, i, flag, count, idx, outcount, indices[4];
  int buf[64], rbuf[64], counts[4], displs[4], rcounts[4], rdispls[4];
  MPI_Request reqs[4];
  MPI_Status st, sts[4];
  MPI_Comm dup, split, created, cart;
  MPI_Group world_group, sub_group, other_group;
  MPI_Datatype contig, vec, indexed, strct, resized;
  MPI_Win win;
  MPI_File fh;
  char name[MPI_MAX_PROCESSOR_NAME];
  int namelen, provided;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(name, &namelen);
  MPI_Query_thread(&provided);
  MPI_Initialized(&flag);
  for (i = 0; i < 64; ++i) buf[i] = rank * 100 + i;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Point-to-point: blocking, synchronous, ready (after a barrier), buffered. */
  MPI_Sendrecv(buf, 4, MPI_INT, right, 1, rbuf, 4, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  if (rank % 2 == 0) {
    MPI_Send(buf, 2, MPI_INT, rank + 1, 2, MPI_COMM_WORLD);
    MPI_Ssend(buf, 3, MPI_DOUBLE, rank + 1, 3, MPI_COMM_WORLD);
  } else {
    MPI_Recv(rbuf, 2, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
    MPI_Recv(rbuf, 3, MPI_DOUBLE, rank - 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Sendrecv_replace(buf, 1, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &st);
  static char bsend_space[1024 + MPI_BSEND_OVERHEAD];
  MPI_Buffer_attach(bsend_space, sizeof bsend_space);
  MPI_Irecv(rbuf, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[0]);
  MPI_Bsend(buf, 1, MPI_INT, right, 5, MPI_COMM_WORLD);
  MPI_Wait(&reqs[0], &st);
  void *detached; int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);

  /* Non-blocking point-to-point and completions. */
  MPI_Irecv(rbuf, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &reqs[0]);
  MPI_Irecv(rbuf + 1, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[1]);
  MPI_Isend(buf, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &reqs[2]);
  MPI_Issend(buf + 1, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[3]);
  MPI_Waitany(4, reqs, &idx, &st);
  MPI_Testall(4, reqs, &flag, sts);
  MPI_Waitsome(4, reqs, &outcount, indices, sts);
  MPI_Waitall(4, reqs, sts);
  MPI_Irecv(rbuf, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &reqs[0]);
  MPI_Ibsend(buf, 0, MPI_INT, right, 9, MPI_COMM_WORLD, &reqs[1]);
  MPI_Request_free(&reqs[1]);
  MPI_Send(buf, 1, MPI_INT, right, 8, MPI_COMM_WORLD);
  do { MPI_Test(&reqs[0], &flag, &st); } while (!flag);
  MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st);

  /* Persistent requests. */
  MPI_Send_init(buf, 2, MPI_INT, right, 10, MPI_COMM_WORLD, &reqs[0]);
  MPI_Recv_init(rbuf, 2, MPI_INT, left, 10, MPI_COMM_WORLD, &reqs[1]);
  MPI_Startall(2, reqs);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  MPI_Start(&reqs[0]);
  MPI_Start(&reqs[1]);
  MPI_Testany(2, reqs, &idx, &flag, &st);
  MPI_Waitall(2, reqs, sts);
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);

  /* Collectives. */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Rsend(buf, 0, MPI_INT, MPI_PROC_NULL, 11, MPI_COMM_WORLD);
  MPI_Bcast(buf, 3, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gather(buf, 2, MPI_INT, rbuf, 2, MPI_INT, 1, MPI_COMM_WORLD);
  for (i = 0; i < size; ++i) { counts[i] = i + 1; displs[i] = 8 * i; rcounts[i] = rank + 1; rdispls[i] = 8 * i; }
  MPI_Gatherv(buf, rank + 1, MPI_INT, rbuf, counts, displs, MPI_INT, 2, MPI_COMM_WORLD);
  MPI_Scatter(buf, 2, MPI_INT, rbuf, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Scatterv(buf, counts, displs, MPI_INT, rbuf, rank + 1, MPI_INT, 3, MPI_COMM_WORLD);
  MPI_Allgather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgatherv(buf, rank + 1, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoall(buf, 2, MPI_INT, rbuf, 2, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoallv(buf, counts, displs, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
  MPI_Reduce(buf, rbuf, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Allreduce(buf, rbuf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter(buf, rbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(buf, rbuf, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
  MPI_Exscan(buf, rbuf, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);

  /* Communicators and groups. */
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split);
  MPI_Comm_set_name(dup, "duplicate");
  MPI_Comm_get_name(dup, name, &namelen);
  MPI_Comm_compare(dup, MPI_COMM_WORLD, &flag);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int members[2] = {0, 2};
  MPI_Group_incl(world_group, 2, members, &sub_group);
  MPI_Group_excl(world_group, 2, members, &other_group);
  MPI_Group_size(sub_group, &count);
  MPI_Group_rank(sub_group, &idx);
  int ranks_in[2] = {0, 1}, ranks_out[2];
  MPI_Group_translate_ranks(sub_group, 2, ranks_in, world_group, ranks_out);
  MPI_Group_compare(sub_group, other_group, &flag);
  MPI_Group_free(&other_group);
  int range[1][3] = {{1, 3, 2}};
  MPI_Group_range_incl(world_group, 1, range, &other_group);
  MPI_Group_union(sub_group, other_group, &other_group);
  MPI_Comm_create(MPI_COMM_WORLD, sub_group, &created);
  if (created != MPI_COMM_NULL) {
    MPI_Allreduce(buf, rbuf, 1, MPI_INT, MPI_MIN, created);
    MPI_Comm_free(&created);
  }
  MPI_Bcast(buf, 1, MPI_INT, 0, split);
  int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2];
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_coords(cart, rank, 2, coords);
  MPI_Cart_shift(cart, 0, 1, &left, &right);
  MPI_Cart_get(cart, 2, dims, periods, coords);
  MPI_Topo_test(cart, &flag);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&split);
  MPI_Group_free(&sub_group);
  MPI_Group_free(&world_group);

  /* Datatypes. */
  MPI_Type_contiguous(4, MPI_INT, &contig);
  MPI_Type_vector(2, 2, 4, MPI_DOUBLE, &vec);
  int blens[2] = {1, 2}, disps[2] = {0, 4};
  MPI_Type_indexed(2, blens, disps, MPI_INT, &indexed);
  MPI_Aint adisps[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, blens, adisps, types, &strct);
  MPI_Type_create_resized(contig, 0, 32, &resized);
  MPI_Type_commit(&contig);
  MPI_Type_commit(&strct);
  MPI_Type_size(strct, &count);
  MPI_Type_set_name(contig, "four_ints");
  MPI_Sendrecv(buf, 1, contig, right, 12, rbuf, 1, contig, left, 12, dup, &st);
  MPI_Pack_size(2, contig, MPI_COMM_WORLD, &count);
  MPI_Type_free(&vec);
  MPI_Type_free(&indexed);
  MPI_Type_free(&resized);

  /* One-sided. */
  MPI_Win_create(rbuf, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(buf, 2, MPI_INT, right, 0, 2, MPI_INT, win);
  MPI_Win_fence(MPI_MODE_NOSTORE, win);
  MPI_Get(buf, 2, MPI_INT, left, 4, 2, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Accumulate(buf, 1, MPI_INT, right, 8, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOPUT, win);
  MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
  MPI_Win_unlock(left, win);
  MPI_Win_free(&win);

  /* A little MPI-IO. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "access_style", "write_once");
  MPI_File_open(MPI_COMM_WORLD, "many_calls.out", MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  MPI_File_write_at(fh, rank * 4, buf, 4, MPI_INT, &st);
  MPI_File_write_at_all(fh, 16 + rank * 4, buf, 4, MPI_INT, &st);
  MPI_File_sync(fh);
  MPI_Offset fsize;
  MPI_File_get_size(fh, &fsize);
  MPI_File_close(&fh);
  MPI_Info_free(&info);

  /* Annotations, attributes, errors, time. */
  MPI_Pcontrol(2, "phase %d", 2);
  MPI_Pcontrol(3, (unsigned long long)7, "keyed");
  int *tag_ub;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  char errtext[MPI_MAX_ERROR_STRING];
  MPI_Error_string(MPI_ERR_TAG, errtext, &namelen);
  MPI_Wtime();
  MPI_Wtick();
  MPI_Comm_free(&dup);
  MPI_Type_free(&contig);
  MPI_Type_free(&strct);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalized(&flag);
  MPI_Finalize();
  return 0;
}
