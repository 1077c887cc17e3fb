/*
 * The root-end scanner (see root_end.h). Each 64-byte block becomes five
 * bit masks (quote, backslash, opener, closer, and whitespace on demand);
 * escapes, strings and nesting are then computed on the masks, so the
 * cost is about one branch per block while the root cannot close in it.
 * The mask builders differ per implementation (byte loop, SSE2, AVX2);
 * the mask arithmetic is shared.
 */
#include "root_end.h"

#include <assert.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define GQL_ROOT_END_X86 1
#include <immintrin.h>
#endif

#define GQL_UNLIKELY_ROOT(x) __builtin_expect(!!(x), 0)

typedef struct block_masks {
  uint64_t quote, backslash, open, close;
} block_masks;

#define EVEN_BITS 0x5555555555555555ull

static inline bool is_ws(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Bit i is the parity of bits 0..i. */
static inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

/* The bytes preceded by an odd run of backslashes (simdjson's method).
 * `valid` bytes of the block are real; the carry says whether the byte
 * after them is escaped. */
static inline uint64_t escaped_mask(uint64_t bs, unsigned valid, bool *carry) {
  uint64_t prev = *carry ? 1 : 0;
  if (bs == 0 && !prev)
    return 0;
  bs &= ~prev; /* an escaped backslash escapes nothing */
  uint64_t follows = bs << 1 | prev;
  uint64_t odd_starts = bs & ~EVEN_BITS & ~follows;
  uint64_t sum;
  bool overflow = __builtin_add_overflow(odd_starts, bs, &sum);
  uint64_t escaped = (EVEN_BITS ^ (sum << 1)) & follows;
  if (valid == 64) {
    *carry = overflow;
    return escaped;
  }
  *carry = (escaped >> valid) & 1;
  return escaped & ((1ull << valid) - 1);
}

/* True when every byte of p[0..n) is whitespace. */
static bool all_ws(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!is_ws(p[i]))
      return false;
  return true;
}

/* Sets the status after the root closed at absolute offset `at` of this
 * read (`base` is the read, `n` its length). */
static gql_root_end_status close_root(gql_root_end *s, const uint8_t *base,
                                      size_t n, size_t at) {
  s->length = s->consumed + at + 1;
  s->status = all_ws(base + at + 1, n - at - 1) ? GQL_ROOT_END_ENDED
                                                : GQL_ROOT_END_TRAILING;
  s->consumed += n;
  return (gql_root_end_status)s->status;
}

/* The shared per-block step. `block` points at the block's first byte
 * (offset `off` in the read), `valid` of its bytes are real. Returns the
 * bit of the root's closer, or -1 when the root stays open; sets
 * s->status to BAD_START when the start byte is wrong. */
static inline int block_step(gql_root_end *s, const uint8_t *block,
                             unsigned valid, block_masks m) {
  uint64_t esc = escaped_mask(m.backslash, valid, &s->escape_carry);
  uint64_t in_str = prefix_xor(m.quote & ~esc);
  if (s->in_string)
    in_str = ~in_str;
  s->in_string = (in_str >> (valid - 1)) & 1;
  uint64_t open = m.open & ~in_str, close = m.close & ~in_str;
  if (GQL_UNLIKELY_ROOT(!s->started)) {
    unsigned i = 0;
    while (i < valid && is_ws(block[i]))
      i++;
    if (i == valid)
      return -1; /* whitespace only: nothing else is set */
    if (block[i] != '{' && block[i] != '[') {
      s->status = GQL_ROOT_END_BAD_START;
      return -1;
    }
    s->started = true;
  }
  uint64_t nclose = (uint64_t)__builtin_popcountll(close);
  if (s->depth > nclose) {
    s->depth += (uint64_t)__builtin_popcountll(open) - nclose;
    return -1;
  }
  for (uint64_t bits = open | close; bits; bits &= bits - 1) {
    int p = __builtin_ctzll(bits);
    if ((open >> p) & 1) {
      s->depth++;
    } else {
      assert(s->depth > 0); /* the first structural byte is the opener */
      if (--s->depth == 0)
        return p;
    }
  }
  return -1;
}

/* The block loop, one copy per mask builder (each compiled for its own
 * target). A short tail is copied into a zeroed block. */
/* The block loop, one copy per mask builder (each compiled for its own
 * target). While the root cannot close, full blocks run in a tight loop on
 * local state: masks, escapes, string mask, two popcounts, one branch. A
 * block where the root may close (or the first one) goes through
 * block_step on the saved state. A short tail is copied into a zeroed
 * block. */
#define DEFINE_FEED(NAME, ATTR, MASKS, PREFIX_XOR)                             \
  ATTR static gql_root_end_status NAME(gql_root_end *s, const uint8_t *buf,    \
                                       size_t n) {                             \
    size_t off = 0;                                                            \
    while (off < n) {                                                          \
      if (s->started) {                                                        \
        uint64_t depth = s->depth;                                             \
        uint64_t instr = s->in_string ? ~0ull : 0;                             \
        bool esc = s->escape_carry;                                            \
        for (; off + 64 <= n; off += 64) {                                     \
          block_masks m = MASKS(buf + off);                                    \
          bool esc2 = esc;                                                     \
          uint64_t e = escaped_mask(m.backslash, 64, &esc2);                   \
          uint64_t in = PREFIX_XOR(m.quote & ~e) ^ instr;                      \
          uint64_t nclose = (uint64_t)__builtin_popcountll(m.close & ~in);     \
          if (GQL_UNLIKELY_ROOT(depth <= nclose))                              \
            break;                                                             \
          depth += (uint64_t)__builtin_popcountll(m.open & ~in) - nclose;      \
          instr = (uint64_t)((int64_t)in >> 63);                               \
          esc = esc2;                                                          \
        }                                                                      \
        s->depth = depth;                                                      \
        s->in_string = instr != 0;                                             \
        s->escape_carry = esc;                                                 \
        if (off >= n)                                                          \
          break;                                                               \
      }                                                                        \
      unsigned valid = n - off >= 64 ? 64 : (unsigned)(n - off);               \
      const uint8_t *block = buf + off;                                        \
      uint8_t tail[64];                                                        \
      if (valid < 64) {                                                        \
        memset(tail, 0, sizeof tail);                                          \
        memcpy(tail, block, valid);                                            \
        block = tail;                                                          \
      }                                                                        \
      int p = block_step(s, block, valid, MASKS(block));                       \
      if (p >= 0)                                                              \
        return close_root(s, buf, n, off + (size_t)p);                         \
      if (s->status != GQL_ROOT_END_MORE) {                                    \
        s->consumed += n;                                                      \
        return (gql_root_end_status)s->status;                                 \
      }                                                                        \
      off += valid;                                                            \
    }                                                                          \
    s->consumed += n;                                                          \
    return GQL_ROOT_END_MORE;                                                  \
  }

/* Bytes past `valid` in a tail block are zero, which matches no mask. */
static inline block_masks masks_portable(const uint8_t *b) {
  block_masks m = {0, 0, 0, 0};
  for (unsigned i = 0; i < 64; i++) {
    uint64_t bit = 1ull << i;
    uint8_t c = b[i], lc = c | 0x20;
    if (c == '"')
      m.quote |= bit;
    if (c == '\\')
      m.backslash |= bit;
    if (lc == '{')
      m.open |= bit; /* { or [ */
    if (lc == '}')
      m.close |= bit; /* } or ] */
  }
  return m;
}
DEFINE_FEED(feed_portable, , masks_portable, prefix_xor)

#ifdef GQL_ROOT_END_X86
__attribute__((target("sse2"))) static inline uint64_t
eq16x4(__m128i a, __m128i b, __m128i c, __m128i d, __m128i x) {
  uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, x));
  uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, x));
  uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(c, x));
  uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(d, x));
  return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}

__attribute__((target("sse2"))) static inline block_masks
masks_sse2(const uint8_t *b) {
  __m128i v0 = _mm_loadu_si128((const __m128i *)b);
  __m128i v1 = _mm_loadu_si128((const __m128i *)(b + 16));
  __m128i v2 = _mm_loadu_si128((const __m128i *)(b + 32));
  __m128i v3 = _mm_loadu_si128((const __m128i *)(b + 48));
  __m128i k20 = _mm_set1_epi8(0x20);
  __m128i l0 = _mm_or_si128(v0, k20), l1 = _mm_or_si128(v1, k20);
  __m128i l2 = _mm_or_si128(v2, k20), l3 = _mm_or_si128(v3, k20);
  block_masks m;
  m.quote = eq16x4(v0, v1, v2, v3, _mm_set1_epi8('"'));
  m.backslash = eq16x4(v0, v1, v2, v3, _mm_set1_epi8('\\'));
  m.open = eq16x4(l0, l1, l2, l3, _mm_set1_epi8('{'));
  m.close = eq16x4(l0, l1, l2, l3, _mm_set1_epi8('}'));
  return m;
}
DEFINE_FEED(feed_sse2, __attribute__((target("sse2"))), masks_sse2, prefix_xor)

__attribute__((target("avx2"))) static inline uint64_t
eq32x2(__m256i a, __m256i b, __m256i x) {
  uint64_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, x));
  uint64_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, x));
  return lo | hi << 32;
}

__attribute__((target("avx2"))) static inline block_masks
masks_avx2(const uint8_t *b) {
  __m256i v0 = _mm256_loadu_si256((const __m256i *)b);
  __m256i v1 = _mm256_loadu_si256((const __m256i *)(b + 32));
  __m256i k20 = _mm256_set1_epi8(0x20);
  __m256i l0 = _mm256_or_si256(v0, k20), l1 = _mm256_or_si256(v1, k20);
  block_masks m;
  m.quote = eq32x2(v0, v1, _mm256_set1_epi8('"'));
  m.backslash = eq32x2(v0, v1, _mm256_set1_epi8('\\'));
  m.open = eq32x2(l0, l1, _mm256_set1_epi8('{'));
  m.close = eq32x2(l0, l1, _mm256_set1_epi8('}'));
  return m;
}
/* prefix_xor as a carry-less multiplication by all ones. */
__attribute__((target("pclmul,sse2"))) static inline uint64_t
prefix_xor_clmul(uint64_t x) {
  __m128i v = _mm_set_epi64x(0, (long long)x);
  return (uint64_t)_mm_cvtsi128_si64(
      _mm_clmulepi64_si128(v, _mm_set1_epi8((char)0xff), 0));
}
DEFINE_FEED(feed_avx2, __attribute__((target("avx2,pclmul"))), masks_avx2,
            prefix_xor_clmul)
#endif

/* The byte-at-a-time reference, with the same escape rule as the masks:
 * a byte after an odd backslash run is escaped, in strings or not. */
static gql_root_end_status feed_reference(gql_root_end *s, const uint8_t *buf,
                                          size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t c = buf[i];
    if (!s->started) {
      if (is_ws(c))
        continue;
      if (c != '{' && c != '[') {
        s->status = GQL_ROOT_END_BAD_START;
        s->consumed += n;
        return GQL_ROOT_END_BAD_START;
      }
      s->started = true;
    }
    bool escaped = s->escape_carry;
    s->escape_carry = c == '\\' && !escaped;
    if (c == '"' && !escaped) {
      s->in_string = !s->in_string;
      continue;
    }
    if (s->in_string)
      continue;
    if (c == '{' || c == '[') {
      s->depth++;
    } else if (c == '}' || c == ']') {
      if (--s->depth == 0)
        return close_root(s, buf, n, i);
    }
  }
  s->consumed += n;
  return GQL_ROOT_END_MORE;
}

bool gql_root_end_supported(gql_root_end_impl impl) {
  switch (impl) {
  case GQL_ROOT_END_AUTO:
  case GQL_ROOT_END_PORTABLE:
  case GQL_ROOT_END_REFERENCE:
    return true;
#ifdef GQL_ROOT_END_X86
  case GQL_ROOT_END_SSE2:
    return __builtin_cpu_supports("sse2");
  case GQL_ROOT_END_AVX2:
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
#else
  case GQL_ROOT_END_SSE2:
  case GQL_ROOT_END_AVX2:
    return false;
#endif
  }
  return false;
}

bool gql_root_end_init_impl(gql_root_end *s, gql_root_end_impl impl) {
  memset(s, 0, sizeof *s);
  if (impl == GQL_ROOT_END_AUTO) {
    impl = gql_root_end_supported(GQL_ROOT_END_AVX2)   ? GQL_ROOT_END_AVX2
           : gql_root_end_supported(GQL_ROOT_END_SSE2) ? GQL_ROOT_END_SSE2
                                                       : GQL_ROOT_END_PORTABLE;
  }
  if (!gql_root_end_supported(impl))
    return false;
  s->impl = (uint8_t)impl;
  return true;
}

void gql_root_end_init(gql_root_end *s) {
  gql_root_end_init_impl(s, GQL_ROOT_END_AUTO);
}

gql_root_end_status gql_root_end_feed(gql_root_end *s, const void *buf,
                                      size_t len) {
  if (s->status != GQL_ROOT_END_MORE)
    return (gql_root_end_status)s->status;
  const uint8_t *p = buf;
  switch ((gql_root_end_impl)s->impl) {
#ifdef GQL_ROOT_END_X86
  case GQL_ROOT_END_AVX2:
    return feed_avx2(s, p, len);
  case GQL_ROOT_END_SSE2:
    return feed_sse2(s, p, len);
#endif
  case GQL_ROOT_END_REFERENCE:
    return feed_reference(s, p, len);
  default:
    return feed_portable(s, p, len);
  }
}
