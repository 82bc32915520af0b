/* The process's descriptor table, sized before the threads start.
 *
 * Linux grows a process's table of descriptors by doubling (64, 128, 256
 * ...) when a new descriptor does not fit. Once the table is shared by
 * threads, each growth waits for an RCU grace period (expand_files ->
 * synchronize_rcu) before the old table can go: here 9 to 23 ms, in the
 * middle of a run, in the worker that opened the connection, with every
 * read, write and due request of that worker waiting too. A run that
 * opens 2,000 connections in its workers crosses four doublings. Growing
 * the table once, while the process has one thread, costs nothing and
 * the table never shrinks, so the run never waits for it. */
#ifndef VOLLEY_FDTABLE_H
#define VOLLEY_FDTABLE_H

/* Grows the table to hold descriptors 0..n-1 (n at most the open-file
 * limit) by duplicating a descriptor to n-1 or above and closing the
 * copy. Call it before any thread starts. Returns 0, or -1 with errno
 * (the table is then grown as descriptors come, as before). */
int fdtable_reserve(int n);

#endif
