/*
 * leafcodec.h
 *		The data area of a compressed leaf page: keys and TIDs as LeCo runs
 *		(leco.h), a dead bitmap at a fixed offset, O(1) access to entry i.
 *
 * Pure C: no PostgreSQL headers (unit-tested by test/unit/test_leafcodec.c).
 *
 * The data area (ON-DISK, inside learned leaf pages, 8-byte aligned) is:
 *
 *   LcpHeader | dead bitmap (n bits, padded to 8 bytes) |
 *   key run | block run | offset run            (each 8-byte aligned)
 *
 * Keys are order-preserving 64-bit images (the caller maps the key type);
 * blocks and offsets are the TIDs' halves.  Every run is a LeCo run: the
 * keys with cost-based partitions (base + slope + narrow residuals each),
 * blocks with one partition (heap-correlated block numbers become a line,
 * random ones frame-of-reference bit-packing), offsets with one too unless
 * the blocks follow the heap: then the offsets' sawtooth is also tried
 * with cost-based partitions, and the smaller run kept.  The bitmap sits
 * right after the header, so its offset does not depend on n: the
 * caller's dead-bit accessors need no decoding.
 */
#ifndef LEARNED_LEAFCODEC_H
#define LEARNED_LEAFCODEC_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define LCP_MAGIC			0x5043454C	/* "LECP" */

/* entries on one compressed page at most (the page's count is a uint16) */
#define LCP_MAX_ITEMS		8192

/* widest residual a run may declare (bits) */
#define LCP_MAX_KEY_BITS	64
#define LCP_MAX_BLOCK_BITS	33
#define LCP_MAX_OFFSET_BITS	17

/* ON-DISK */
typedef struct LcpHeader
{
	uint32_t	magic;
	uint32_t	n;				/* entries */
	uint32_t	key_off;		/* byte offsets from the start of the area */
	uint32_t	blk_off;
	uint32_t	off_off;
	uint32_t	end_off;		/* bytes used */
} LcpHeader;

/* the dead bitmap's offset in the area, whatever n */
#define LCP_DEAD_OFFSET		((size_t) sizeof(LcpHeader))

/* results of lcp_encode */
#define LCP_OK				0
#define LCP_NOFIT			1
#define LCP_NOMEM			2

/* an opened (validated) page */
typedef struct LcpView
{
	uint32_t	n;
	const uint8_t *keys;
	const uint8_t *blocks;
	const uint8_t *offsets;
	bool		tids_lazy;		/* TID runs' partitions not all checked yet */
} LcpView;

static inline size_t
lcp_bitmap_bytes(uint32_t n)
{
	return (((size_t) n + 7) / 8 + 7) & ~(size_t) 7;
}

/*
 * Encode n entries (1 <= n <= LCP_MAX_ITEMS) into area[0..avail-1], dead
 * bitmap all clear.  Returns LCP_OK (and the bytes used in *used),
 * LCP_NOFIT if they need more than avail bytes (area then undefined; *used
 * is then the bytes they would need, or 0 if n is out of range), or
 * LCP_NOMEM.
 */
extern int	lcp_encode(const uint64_t *keys, const uint64_t *blocks,
					   const uint64_t *offsets, uint32_t n,
					   uint8_t *area, size_t avail, size_t *used);

/*
 * Validate an area read from disk (avail bytes, 8-byte aligned) holding
 * expect_n entries: header, offsets, runs (leco_validate), counts, residual
 * widths.  Fills *v and returns true if sane.
 */
extern bool lcp_open(const uint8_t *area, size_t avail, uint32_t expect_n,
					 LcpView *v);

/*
 * The same, but the key run's partitions and jump table are not checked
 * (its header, its first and last partitions are): a page visit that
 * reads a few keys does not pay for checking them all.  Such a view's keys
 * are read only with the _checked functions, which check the partitions
 * they touch and return false on damage.  A block or offset run of one
 * partition is checked as by lcp_open; one of several (heap-ordered
 * offsets) only as the key run is, and the view's tids_lazy says so: its
 * TIDs are then read only with lcp_tid_checked and
 * lcp_decode_range_checked, which also check that each value fits its
 * half of a TID.
 */
extern bool lcp_open_lazy(const uint8_t *area, size_t avail, uint32_t expect_n,
						  LcpView *v);
extern bool lcp_key_checked(const LcpView *v, uint32_t i, uint64_t *key);
extern bool lcp_tid_checked(const LcpView *v, uint32_t i, uint32_t *block,
							uint16_t *offset);
extern bool lcp_decode_range_checked(const LcpView *v, uint32_t from, uint32_t count,
									 uint64_t *keys, uint64_t *blocks, uint64_t *offsets);
extern bool lcp_lower_bound_checked(const LcpView *v, uint64_t x, uint32_t *pos);

/*
 * The first entry in [a, b) (a <= b <= n) whose key image is >= x, b if
 * none, by random access (a short range: the model's window in the page);
 * false on damage.
 */
extern bool lcp_lower_bound_in_checked(const LcpView *v, uint64_t x, uint32_t a,
									   uint32_t b, uint32_t *pos);

extern uint64_t lcp_key(const LcpView *v, uint32_t i);
extern uint32_t lcp_block(const LcpView *v, uint32_t i);
extern uint16_t lcp_offset(const LcpView *v, uint32_t i);

/* decode everything (any output may be NULL) */
extern void lcp_decode(const LcpView *v, uint64_t *keys, uint64_t *blocks,
					   uint64_t *offsets);

/*
 * decode entries from .. from + count - 1 (all < n; any output may be NULL):
 * what a scan returns of a page, without decoding the rest of it
 */
extern void lcp_decode_range(const LcpView *v, uint32_t from, uint32_t count,
							 uint64_t *keys, uint64_t *blocks, uint64_t *offsets);

/* prefetch the TID of entry i (i < n): a scan about to return it */
extern void lcp_prefetch_tid(const LcpView *v, uint32_t i);

/* first entry whose key image is >= x (n if none), on the compressed form */
extern uint32_t lcp_lower_bound(const LcpView *v, uint64_t x);

#endif							/* LEARNED_LEAFCODEC_H */
