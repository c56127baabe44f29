/*
 * compat.h
 *		Differences between the PostgreSQL majors learned_idx builds on.
 */
#ifndef LEARNED_COMPAT_H
#define LEARNED_COMPAT_H

/*
 * Before 18, core accepts only btree unique indexes as ON CONFLICT arbiters
 * and builds speculative-insertion info for every unique index of the
 * table, so one unique learned index makes every INSERT ... ON CONFLICT on
 * it fail ("unexpected non-btree speculative unique index").
 */
#define LEARNED_UNIQUE_BREAKS_ON_CONFLICT (PG_VERSION_NUM < 180000)

#endif							/* LEARNED_COMPAT_H */
