/* The structure of a file's old-style groups, checked before HDF5 opens it.
 *
 * HDF5 1.10.8 trusts the addresses and sizes it finds in the metadata of an
 * old-style group (a symbol table message pointing to a version 1 B-tree of
 * symbol table nodes, whose link names live in a local heap): an undefined
 * address (all ones) wraps its end-of-allocation test and H5Literate reads
 * through a wild pointer (SEGV in H5F__accum_read <- H5HL_protect, found
 * twice by fuzz_fclib: a heap's undefined data address, then a symbol table
 * message whose B-tree and heap addresses were undefined), and a heap placed
 * over another made it allocate gigabytes. This file reads the file's own
 * bytes (no HDF5 call) from the superblock down, following every group the
 * way HDF5 will when it lists or looks up a link (HDF5 file format
 * specification, sections II.A, III.A.1, III.B, III.D, IV.A), and accepts
 * the file only when everything HDF5 would follow lies inside the file and
 * is consistent:
 *
 *  - object headers (version 1, or 2 "OHDR"/"OCHK") inside the file, each
 *    message inside its chunk, continuation chunks inside the file, distinct
 *    and at most MAX_CHUNKS;
 *  - a symbol table message's B-tree and local heap addresses inside the file;
 *  - a local heap: signature, version 0, header and data block inside the
 *    file, a free list whose blocks lie inside the data block and that ends
 *    (no cycle); the headers and data blocks of all heaps pairwise disjoint;
 *  - a B-tree node: signature "TREE", type 0 (group), the node's full size
 *    (from the group internal K) inside the file, at most 2K children, each
 *    child one level below its parent (so the walk ends), every key and every
 *    link name a NUL-terminated string inside its heap's data block;
 *  - a symbol table node: signature "SNOD", version 1, the full node (2 x the
 *    group leaf K entries) inside the file, at most 2K entries, each entry's
 *    name (and a soft link's value) inside the heap, its object header inside
 *    the file (walked in turn: nested groups are checked the same way);
 *  - a message flagged shared, in any object header walked (datasets too):
 *    the shared message table inside the file when the message is kept
 *    there, else the object header it names inside the file (a fill value
 *    damaged into "shared" made H5Dopen2 follow the missing table's
 *    undefined address, found by fuzz_fclib on this walk);
 *  - a dataset's layout message: a known version and class, compact data
 *    inside the message, contiguous data and chunk index undefined or inside
 *    the file, chunks of 2 to 33 dimensions, none 0 (chunks of 0 dimensions
 *    made H5Dopen2 loop over 2^32 - 1 of them, found the same way).
 *
 * What HDF5 does not follow when it reads (a B-tree node's siblings, the
 * symbol table addresses cached in symbol table entries and in the
 * superblock's root entry, used only for writing) is not checked.
 *
 * Groups with new-style compact links (link messages) are followed through
 * their hard links; groups in dense storage (fractal heap) and groups deeper
 * than MAX_DEPTH are not walked (nscd and libfclib only look up fixed paths
 * three levels deep). Nothing is allocated: the work is bounded by a budget
 * of reads proportional to the file's size, the recursion by MAX_DEPTH groups
 * times MAX_LEVEL B-tree levels. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fclib_internal.h"

/* The walker lives on the stack (about 20 KiB at the deepest). */
enum {
    MAX_DEPTH = 8,   /* groups below the root that are walked (nscd's paths: 3) */
    MAX_LEVEL = 32,  /* B-tree levels (8 hold 2^40 links with the default K) */
    MAX_CHUNKS = 64, /* chunks of one object header */
    MAX_HEAPS = 256  /* local heaps compared for overlap */
};

#define UNDEFINED_ADDRESS (~0ULL)

typedef struct block {
    unsigned long long address, size;
} block;

typedef struct heap {
    unsigned long long header, data, size; /* header address; data block */
} heap;

typedef struct walker {
    FILE *f;
    unsigned long long base;  /* file offset of the superblock: addresses start there */
    unsigned long long limit; /* every address + size must stay below */
    int offsets, lengths;     /* widths of addresses and lengths */
    unsigned leaf_k, internal_k;
    unsigned long long sohm; /* the shared message table (superblock extension), or undefined */
    long long budget;        /* reads left */
    unsigned long long path[MAX_DEPTH + 1];
    int depth;
    heap heaps[MAX_HEAPS];
    int n_heaps;
    const char *why; /* the first inconsistency found */
} walker;

static bool fail(walker *w, const char *why) {
    if (w->why == NULL) {
        w->why = why;
    }
    return false;
}

static unsigned long long little_endian(const unsigned char *p, int width) {
    unsigned long long v = 0;
    for (int k = width - 1; k >= 0; --k) {
        v = (v << 8) | p[k];
    }
    return v;
}

/* The undefined address (all ones) at the file's width. */
static unsigned long long undefined(int width) {
    return width >= 8 ? UNDEFINED_ADDRESS : (1ULL << (8 * width)) - 1;
}

static bool inside(const walker *w, unsigned long long address, unsigned long long size) {
    return address < w->limit && size <= w->limit - address;
}

/* Reads n (<= 64) bytes at a (relative) address inside the file. */
static bool fetch(walker *w, unsigned long long address, size_t n, unsigned char *out) {
    if (!inside(w, address, n)) {
        return fail(w, "an address or size points outside the file");
    }
    if (--w->budget < 0) {
        return fail(w, "more structure than the file's size allows (a cycle)");
    }
    unsigned long long at = w->base + address;
    if (at > (unsigned long long)LONG_MAX || fseek(w->f, (long)at, SEEK_SET) != 0 ||
        fread(out, 1, n, w->f) != n) {
        return fail(w, "the file cannot be read");
    }
    return true;
}

static bool fetch_value(walker *w, unsigned long long address, int width,
                        unsigned long long *value) {
    unsigned char b[8];
    if (!fetch(w, address, (size_t)width, b)) {
        return false;
    }
    *value = little_endian(b, width);
    return true;
}

/* ------------------------------------------------------------- local heaps */

/* A NUL-terminated string at `offset` of the heap's data block. */
static bool heap_string(walker *w, const heap *h, unsigned long long offset) {
    if (offset >= h->size) {
        return fail(w, "a link name lies outside its group's local heap");
    }
    unsigned char b[64];
    for (unsigned long long at = offset; at < h->size; at += sizeof b) {
        size_t n = h->size - at < sizeof b ? (size_t)(h->size - at) : sizeof b;
        if (!fetch(w, h->data + at, n, b)) {
            return false;
        }
        if (memchr(b, 0, n) != NULL) {
            return true;
        }
    }
    return fail(w, "a link name runs past the end of its local heap");
}

static bool overlap(unsigned long long a, unsigned long long a_size, unsigned long long b,
                    unsigned long long b_size) {
    return a < b + b_size && b < a + a_size;
}

/* The local heap at `address`: header, data block, free list; recorded. */
static bool local_heap(walker *w, unsigned long long address, heap *out) {
    const int L = w->lengths, O = w->offsets;
    const unsigned long long prefix = 8 + 2 * (unsigned long long)L + (unsigned long long)O;
    unsigned char b[40];
    if (!inside(w, address, prefix)) {
        return fail(w, "a group's local heap lies outside the file");
    }
    if (!fetch(w, address, (size_t)prefix, b)) {
        return false;
    }
    if (memcmp(b, "HEAP", 4) != 0 || b[4] != 0) {
        return fail(w, "a group's local heap has no HEAP signature or version 0");
    }
    heap h = {address, little_endian(b + 8 + 2 * L, O), little_endian(b + 8, L)};
    unsigned long long free_block = little_endian(b + 8 + L, L);
    if (!inside(w, h.data, h.size)) {
        return fail(w, "a local heap's data block lies outside the file");
    }
    /* HDF5 writes 1 for "no free block", the specification the undefined address */
    unsigned long long steps = h.size / (2 * (unsigned long long)L) + 1;
    while (free_block != 1 && free_block != undefined(L)) {
        unsigned long long next = 0, size = 0;
        if (steps-- == 0 || free_block >= h.size ||
            2 * (unsigned long long)L > h.size - free_block) {
            return fail(w, "a local heap's free list leaves its data block or does not end");
        }
        if (!fetch_value(w, h.data + free_block, L, &next) ||
            !fetch_value(w, h.data + free_block + (unsigned long long)L, L, &size)) {
            return false;
        }
        if (size > h.size - free_block) {
            return fail(w, "a local heap's free block runs past its data block");
        }
        free_block = next;
    }
    for (int k = 0; k < w->n_heaps; ++k) {
        const heap *o = &w->heaps[k];
        if (o->header == h.header) {
            if (o->data != h.data || o->size != h.size) {
                return fail(w, "a local heap read twice differs");
            }
            *out = h;
            return true;
        }
    }
    /* Header and data of every heap apart from those of every other (a heap
     * whose data address was damaged into another heap made HDF5 allocate
     * gigabytes), and a heap's data apart from its own header. */
    if (overlap(h.header, prefix, h.data, h.size)) {
        return fail(w, "a local heap's data block overlaps its header");
    }
    for (int k = 0; k < w->n_heaps; ++k) {
        const heap *o = &w->heaps[k];
        if (overlap(h.header, prefix, o->header, prefix) ||
            overlap(h.header, prefix, o->data, o->size) ||
            overlap(h.data, h.size, o->header, prefix) ||
            overlap(h.data, h.size, o->data, o->size)) {
            return fail(w, "two local heaps overlap");
        }
    }
    if (w->n_heaps < MAX_HEAPS) {
        w->heaps[w->n_heaps++] = h;
    }
    *out = h;
    return true;
}

/* ------------------------------------------------------------ object headers */

static bool walk_object(walker *w, unsigned long long address);

/* An old-style group's symbol table: B-tree and local heap. */
static bool walk_btree(walker *w, unsigned long long address, int level, const heap *h);

/* A symbol table node (a leaf of the group's B-tree): its entries. */
static bool walk_snod(walker *w, unsigned long long address, const heap *h) {
    const int O = w->offsets;
    const unsigned long long entry = 2 * (unsigned long long)O + 24;
    const unsigned long long capacity = 2 * (unsigned long long)w->leaf_k;
    unsigned char b[64];
    if (!inside(w, address, 8 + capacity * entry)) {
        return fail(w, "a symbol table node lies outside the file");
    }
    if (!fetch(w, address, 8, b)) {
        return false;
    }
    unsigned long long n = little_endian(b + 6, 2);
    if (memcmp(b, "SNOD", 4) != 0 || b[4] != 1) {
        return fail(w, "a symbol table node has no SNOD signature or version 1");
    }
    if (n > capacity) {
        return fail(w, "a symbol table node holds more entries than it has room for");
    }
    for (unsigned long long k = 0; k < n; ++k) {
        if (!fetch(w, address + 8 + k * entry, (size_t)entry, b)) {
            return false;
        }
        unsigned long long name = little_endian(b, O), header = little_endian(b + O, O);
        unsigned long long cache = little_endian(b + 2 * O, 4);
        const unsigned char *scratch = b + 2 * O + 8;
        if (!heap_string(w, h, name)) {
            return false;
        }
        if (cache > 2) {
            return fail(w, "a symbol table entry has an unknown cache type");
        }
        if (cache == 2) { /* a soft link: its value in the heap, no object header */
            if (!heap_string(w, h, little_endian(scratch, 4))) {
                return false;
            }
            continue;
        }
        /* cache 1: the group's symbol table addresses, a copy HDF5 does not
         * follow (the group's own message is walked) */
        if (!walk_object(w, header)) {
            return false;
        }
    }
    return true;
}

static bool walk_btree(walker *w, unsigned long long address, int level, const heap *h) {
    const int O = w->offsets, L = w->lengths;
    const unsigned long long pair = (unsigned long long)O + (unsigned long long)L;
    const unsigned long long capacity = 2 * (unsigned long long)w->internal_k;
    const unsigned long long node = 8 + 2 * (unsigned long long)O + capacity * pair + L;
    unsigned char b[64];
    if (!inside(w, address, node)) {
        return fail(w, "a group's B-tree node lies outside the file");
    }
    if (!fetch(w, address, 8 + 2 * (size_t)O, b)) {
        return false;
    }
    if (memcmp(b, "TREE", 4) != 0 || b[4] != 0) {
        return fail(w, "a group's B-tree node has no TREE signature or is not a group node");
    }
    int node_level = b[5];
    unsigned long long used = little_endian(b + 6, 2);
    /* the sibling addresses (b + 8) are not followed when reading: not checked */
    if (node_level > MAX_LEVEL || (level >= 0 && node_level != level)) {
        return fail(w, "a group's B-tree node is not one level below its parent");
    }
    if (used > capacity) {
        return fail(w, "a group's B-tree node has more children than it has room for");
    }
    unsigned long long at = address + 8 + 2 * (unsigned long long)O;
    for (unsigned long long k = 0; k <= used; ++k, at += pair) {
        unsigned long long key = 0, child = 0;
        if (!fetch_value(w, at, L, &key) || !heap_string(w, h, key)) {
            return false;
        }
        if (k == used) {
            break; /* the last key has no child */
        }
        if (!fetch_value(w, at + (unsigned long long)L, O, &child)) {
            return false;
        }
        bool ok = node_level > 0 ? walk_btree(w, child, node_level - 1, h) : walk_snod(w, child, h);
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* The messages of an object header, handed one by one to `visit`. */
typedef bool (*message_visitor)(walker *w, unsigned type, const unsigned char *body, size_t n,
                                unsigned long long size, unsigned long long address, void *context);

/* One message whose body's first n = min(size, 64) bytes are read before `visit`. */
static bool message(walker *w, unsigned type, unsigned long long address, unsigned long long size,
                    message_visitor visit, void *context) {
    unsigned char b[64];
    size_t n = size < sizeof b ? (size_t)size : sizeof b;
    if (type != 0x06 && type != 0x08 && type != 0x0f && type != 0x11 && type != 0x13) {
        return true; /* not a link, layout, shared message table, symbol table or K values */
    }
    if (n > 0 && !fetch(w, address, n, b)) {
        return false;
    }
    return visit(w, type, b, n, size, address, context);
}

/* A message stored elsewhere (flag "shared"): HDF5 follows its address when
 * it reads the message (fuzz_fclib: a fill value message flagged shared in a
 * file without a shared message table made H5Dopen2 protect the table at the
 * undefined address, SEGV in H5F__accum_read <- H5SM_get_fheap_addr). The
 * encodings of H5O__shared_decode: version 1 (an object header address after
 * 6 reserved bytes and a length), 2 or 3 with type 1 (a heap ID in the shared
 * message table's heap: HDF5 1.10.8 takes type 1 so in version 2 too, which
 * the damaged file had), 2 with another type, or 3 with type 2 (an object
 * header address). */
static bool shared_message(walker *w, unsigned long long body, unsigned long long size) {
    const int O = w->offsets, L = w->lengths;
    unsigned char b[2];
    if (size < 2 || !fetch(w, body, 2, b)) {
        return fail(w, "a shared message is too short");
    }
    unsigned long long at = 0, target = 0;
    if (b[0] == 1) {
        at = 8 + (unsigned long long)L;
    } else if ((b[0] == 2 && b[1] != 1) || (b[0] == 3 && b[1] == 2)) {
        at = 2;
    } else if ((b[0] == 2 || b[0] == 3) && b[1] == 1) { /* HDF5 takes type 1 as in the table */
        if (w->sohm == undefined(O) || !inside(w, w->sohm, 4)) {
            return fail(w, "a message shared through a missing shared message table");
        }
        return size >= 10 ? true : fail(w, "a shared message is too short");
    } else {
        return fail(w, "a shared message of an unknown version or type");
    }
    if (size < at + (unsigned long long)O || !fetch_value(w, body + at, O, &target)) {
        return fail(w, "a shared message is too short");
    }
    return inside(w, target, 1) ? true : fail(w, "a shared message points outside the file");
}

static bool for_each_message(walker *w, unsigned long long address, message_visitor visit,
                             void *context) {
    const int O = w->offsets, L = w->lengths;
    block chunks[MAX_CHUNKS];
    int n_chunks = 0;
    unsigned char b[32];
    if (!fetch(w, address, 1, b)) {
        return false;
    }
    bool v2 = b[0] == 'O';
    unsigned header_flags = 0;
    if (v2) { /* "OHDR", version 2, flags, [times], [attribute limits], chunk size */
        if (!fetch(w, address, 6, b) || memcmp(b, "OHDR", 4) != 0 || b[4] != 2) {
            return fail(w, "an object header has no valid signature or version");
        }
        unsigned flags = header_flags = b[5];
        unsigned long long at = address + 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
        int width = 1 << (flags & 3);
        unsigned long long size = 0;
        if (!fetch_value(w, at, width, &size)) {
            return false;
        }
        chunks[n_chunks++] = (block){at + (unsigned long long)width, size};
        if (!inside(w, at + (unsigned long long)width, size) ||
            !inside(w, at + (unsigned long long)width + size, 4)) {
            return fail(w, "an object header lies outside the file");
        }
    } else { /* version 1: 16 bytes, then the first chunk */
        if (!fetch(w, address, 16, b) || b[0] != 1) {
            return fail(w, "an object header has no valid version");
        }
        unsigned long long size = little_endian(b + 8, 4);
        if (!inside(w, address + 16, size)) {
            return fail(w, "an object header lies outside the file");
        }
        chunks[n_chunks++] = (block){address + 16, size};
    }
    /* a message's header: v2 type, size, flags (and its creation order when
     * the object header's flags track it); v1 type, size, flags, reserved */
    const unsigned long long header = v2 ? ((header_flags & 0x04) ? 6 : 4) : 8;
    for (int c = 0; c < n_chunks; ++c) {
        unsigned long long at = chunks[c].address, end = at + chunks[c].size;
        if (v2 && c > 0) { /* "OCHK", messages, checksum */
            if (chunks[c].size < 8 || !fetch(w, at, 4, b) || memcmp(b, "OCHK", 4) != 0) {
                return fail(w, "an object header continuation has no OCHK signature");
            }
            at += 4, end -= 4;
        }
        while (end - at >= header) { /* v2: a shorter rest is a gap */
            if (!fetch(w, at, (size_t)header, b)) {
                return false;
            }
            unsigned type = v2 ? b[0] : (unsigned)little_endian(b, 2);
            unsigned long long size = little_endian(b + (v2 ? 1 : 2), 2);
            unsigned long long body = at + header;
            if (body > end || size > end - body) {
                return fail(w, "an object header message runs past its chunk");
            }
            if (type == 0x10) { /* continuation: address, length */
                unsigned long long next = 0, length = 0;
                if (size < (unsigned long long)(O + L) || !fetch_value(w, body, O, &next) ||
                    !fetch_value(w, body + (unsigned long long)O, L, &length)) {
                    return fail(w, "an object header continuation message is damaged");
                }
                if (!inside(w, next, length) || length == 0) {
                    return fail(w, "an object header continuation lies outside the file");
                }
                for (int k = 0; k < n_chunks; ++k) {
                    if (overlap(next, length, chunks[k].address, chunks[k].size)) {
                        return fail(w, "object header chunks overlap (a cycle)");
                    }
                }
                if (n_chunks == MAX_CHUNKS) {
                    return fail(w, "an object header has too many continuation chunks");
                }
                chunks[n_chunks++] = (block){next, length};
            } else if (!message(w, type, body, size, visit, context)) {
                return false;
            }
            if ((b[v2 ? 3 : 4] & 0x02) && !shared_message(w, body, size)) {
                return false;
            }
            at = body + size;
        }
        if (!v2 && at != end) {
            return fail(w, "an object header message runs past its chunk");
        }
    }
    return true;
}

/* An address that is undefined (not allocated) or lies inside the file. */
static bool address_ok(walker *w, unsigned long long address, unsigned long long size) {
    return address == undefined(w->offsets) || inside(w, address, size);
}

/* A dataset's layout message (type 8; specification IV.A.2.i): HDF5 1.10.8
 * decodes a chunked layout's dimensionality without a lower bound, and
 * H5Dopen2 then loops over ndims - 1 = 2^32 - 1 chunk dimensions (SEGV in
 * H5D__chunk_set_sizes: fuzz_fclib, a string dataset whose layout was damaged
 * into "chunked, 0 dimensions"). Checked: a known version and class; compact
 * data inside the message; contiguous data and the chunk index undefined or
 * inside the file; chunks of 2 to 33 dimensions (the dataset's rank + 1),
 * each of at least one element. */
static bool layout_message(walker *w, const unsigned char *b, size_t n, unsigned long long size,
                           unsigned long long address) {
    const int O = w->offsets, L = w->lengths;
    if (n < 2 || b[0] < 1 || b[0] > 4) {
        return fail(w, "a dataset's layout message has an unknown version");
    }
    unsigned version = b[0], layout_class = version <= 2 ? b[2] : b[1];
    if (version <= 2) { /* dimensionality, class, 5 reserved bytes, ... */
        if (n < 3 || (layout_class == 2 && (b[1] < 2 || b[1] > 33))) {
            return fail(w, "a dataset's chunks have fewer than 2 or more than 33 dimensions");
        }
        return layout_class <= 2 ? true : fail(w, "a dataset's layout has an unknown class");
    }
    unsigned long long at = 0, value = 0;
    switch (layout_class) {
    case 0: /* compact: size, data */
        if (n < 4 || 4 + little_endian(b + 2, 2) > size) {
            return fail(w, "a dataset's compact data run past its layout message");
        }
        return true;
    case 1: { /* contiguous: address, size */
        unsigned long long where = 0, bytes = 0;
        if (size < 2 + (unsigned long long)(O + L) || !fetch_value(w, address + 2, O, &where) ||
            !fetch_value(w, address + 2 + (unsigned long long)O, L, &bytes)) {
            return fail(w, "a dataset's layout message is too short");
        }
        return address_ok(w, where, bytes) ? true
                                           : fail(w, "a dataset's data lie outside the file");
    }
    case 2: break;
    case 3: return version == 4 ? true : fail(w, "a dataset's layout has an unknown class");
    default: return fail(w, "a dataset's layout has an unknown class");
    }
    /* chunked: v3 dimensionality, index address, 4-byte dimensions; v4 flags,
     * dimensionality, bytes per dimension, dimensions, index type and
     * information, index address */
    unsigned flags = 0, dims = 0, width = 4;
    if (version == 3) {
        dims = n > 2 ? b[2] : 0;
        at = 3 + (unsigned long long)O;
    } else {
        flags = n > 2 ? b[2] : 0;
        dims = n > 3 ? b[3] : 0;
        width = n > 4 ? b[4] : 0;
        at = 5;
    }
    if (dims < 2 || dims > 33) {
        return fail(w, "a dataset's chunks have fewer than 2 or more than 33 dimensions");
    }
    if (width < 1 || width > 8) {
        return fail(w, "a dataset's chunk dimensions have an invalid width");
    }
    if (at + (unsigned long long)dims * width > size) {
        return fail(w, "a dataset's layout message is too short");
    }
    for (unsigned k = 0; k < dims; ++k, at += width) {
        if (!fetch_value(w, address + at, (int)width, &value)) {
            return false;
        }
        if (value == 0) {
            return fail(w, "a dataset's chunk has a dimension of 0");
        }
    }
    unsigned long long index = 0;
    if (version == 3) {
        if (!fetch_value(w, address + 3, O, &index)) {
            return false;
        }
    } else {
        unsigned char type = 0;
        if (at >= size || !fetch(w, address + at, 1, &type)) {
            return fail(w, "a dataset's layout message is too short");
        }
        static const unsigned info[6] = {0, 0, 0, 1, 5, 6}; /* by index type */
        if (type < 1 || type > 5) {
            return fail(w, "a dataset's chunk index has an unknown type");
        }
        at += 1 + info[type] + (type == 1 && (flags & 0x02) ? (unsigned long long)L + 4 : 0);
        if (at + (unsigned long long)O > size || !fetch_value(w, address + at, O, &index)) {
            return fail(w, "a dataset's layout message is too short");
        }
    }
    return address_ok(w, index, 1) ? true
                                   : fail(w, "a dataset's chunk index lies outside the file");
}

/* A group's messages: a symbol table (old-style group) is walked, hard links
 * (new-style compact group) followed; a dataset's layout is checked. */
static bool group_message(walker *w, unsigned type, const unsigned char *b, size_t n,
                          unsigned long long size, unsigned long long address, void *context) {
    (void)context;
    const int O = w->offsets;
    if (type == 0x08) {
        return layout_message(w, b, n, size, address);
    }
    if (type == 0x11) { /* symbol table: B-tree address, local heap address */
        if (n < 2 * (size_t)O) {
            return fail(w, "a symbol table message is too short");
        }
        unsigned long long tree = little_endian(b, O), heap_address = little_endian(b + O, O);
        heap h;
        if (!inside(w, tree, 1) || !inside(w, heap_address, 1)) {
            return fail(w, "a symbol table message points outside the file");
        }
        return local_heap(w, heap_address, &h) && walk_btree(w, tree, -1, &h);
    }
    if (type == 0x06 && n >= 2 && b[0] == 1) { /* a link: version 1, flags */
        unsigned flags = b[1];
        size_t at = 2;
        unsigned link_type = 0;
        if (flags & 0x08) {
            link_type = at < n ? b[at] : 255;
            at += 1;
        }
        at += (flags & 0x04) ? 8 : 0;
        at += (flags & 0x10) ? 1 : 0;
        size_t width = (size_t)1 << (flags & 3);
        if (link_type != 0) {
            return true; /* soft or external: nothing to walk */
        }
        if (at + width > n) {
            return fail(w, "a link message is too short");
        }
        unsigned long long name_length = little_endian(b + at, (int)width), target = 0;
        if (name_length > size || at + width + (size_t)O > size - name_length) {
            return fail(w, "a link message is too short for its name");
        }
        if (!fetch_value(w, address + at + width + name_length, O, &target)) {
            return false;
        }
        if (!inside(w, target, 1)) {
            return fail(w, "a hard link points outside the file");
        }
        return walk_object(w, target);
    }
    return true;
}

static bool walk_object(walker *w, unsigned long long address) {
    if (!inside(w, address, 1)) {
        return fail(w, "an object header address lies outside the file");
    }
    for (int k = 0; k <= w->depth; ++k) {
        if (w->path[k] == address) {
            return true; /* a hard link to an enclosing group: legal, walked already */
        }
    }
    if (w->depth == MAX_DEPTH) {
        return true; /* deeper than any path nscd looks up */
    }
    w->path[++w->depth] = address;
    bool ok = for_each_message(w, address, group_message, NULL);
    --w->depth;
    return ok;
}

/* Version 2-3 superblocks keep the groups' K values in the extension. */
static bool k_values(walker *w, unsigned type, const unsigned char *b, size_t n,
                     unsigned long long size, unsigned long long address, void *context) {
    (void)size, (void)address, (void)context;
    if (type == 0x13 && n >= 7 && b[0] == 0) {
        w->internal_k = (unsigned)little_endian(b + 3, 2);
        w->leaf_k = (unsigned)little_endian(b + 5, 2);
    }
    if (type == 0x0f && n >= 1 + (size_t)w->offsets && b[0] == 0) {
        w->sohm = little_endian(b + 1, w->offsets);
    }
    return true;
}

bool nscd__fclib_groups_valid(FILE *f, long long file_bytes, const char **why) {
    walker w = {.f = f, .why = NULL, .leaf_k = 4, .internal_k = 16, .depth = 0};
    *why = NULL;
    if (file_bytes <= 0) {
        return true; /* HDF5 refuses it */
    }
    w.budget = file_bytes / 2 + 4096;
    /* The superblock: at 0, 512, 1024, 2048, ... (after a user block). */
    unsigned char b[128];
    unsigned long long at = 0;
    for (;; at = at == 0 ? 512 : 2 * at) {
        if (at + 8 > (unsigned long long)file_bytes) {
            return true; /* no signature: HDF5 refuses it */
        }
        if (fseek(f, (long)at, SEEK_SET) != 0 || fread(b, 1, 8, f) != 8) {
            return true;
        }
        if (memcmp(b, "\x89HDF\r\n\x1a\n", 8) == 0) {
            break;
        }
    }
    size_t got = fread(b + 8, 1, sizeof b - 8, f) + 8;
    int version = b[8];
    size_t p = 0;
    if (version <= 1) {
        w.offsets = b[13], w.lengths = b[14];
        w.leaf_k = (unsigned)little_endian(b + 16, 2);
        w.internal_k = (unsigned)little_endian(b + 18, 2);
        p = version == 0 ? 24 : 28;
    } else if (version <= 3) {
        w.offsets = b[9], w.lengths = b[10];
        p = 12;
    } else {
        return true; /* HDF5 1.10 refuses it */
    }
    const int O = w.offsets, L = w.lengths;
    if ((O != 2 && O != 4 && O != 8) || (L != 2 && L != 4 && L != 8)) {
        return true; /* HDF5 refuses these itself */
    }
    w.sohm = undefined(O);
    if (w.leaf_k == 0 || w.internal_k == 0) {
        *why = "a group K value of 0 in the superblock";
        return false;
    }
    /* base, extension (free space), end of file, root (v2-3) or driver (v0-1) */
    if (p + 4 * (size_t)O > got) {
        return true; /* a truncated superblock: HDF5 refuses it */
    }
    unsigned long long extension = little_endian(b + p + O, O);
    unsigned long long eof = little_endian(b + p + 2 * O, O);
    w.base = at;
    w.limit = (unsigned long long)file_bytes - at;
    if (eof < w.limit) {
        w.limit = eof; /* HDF5 reads nothing beyond the end of allocation */
    }
    unsigned long long root = 0;
    if (version <= 1) { /* the root's symbol table entry follows */
        size_t e = p + 4 * (size_t)O;
        if (e + 2 * (size_t)O + 24 > got) {
            return true;
        }
        /* its cached symbol table is followed by HDF5 only when the file is
         * opened for writing (H5G_mkroot): not checked */
        root = little_endian(b + e + O, O);
    } else {
        root = little_endian(b + p + 3 * O, O);
        if (extension != undefined(O) && !for_each_message(&w, extension, k_values, NULL)) {
            *why = w.why;
            return false;
        }
        if (w.leaf_k == 0 || w.internal_k == 0) {
            *why = "a group K value of 0 in the superblock extension";
            return false;
        }
    }
    w.path[0] = root;
    bool ok = inside(&w, root, 1) ? for_each_message(&w, root, group_message, NULL)
                                  : fail(&w, "the root group lies outside the file");
    *why = w.why;
    return ok;
}
