// Helpers the PMIx test clients share: fail with a one-line message, and read numbers and strings
// out of PMIx values whatever integer type the server chose.
#pragma once

#include <pmix.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace prte_test {

// Prints "<program>: error: <message>" and exits 1.
[[noreturn]] inline void fail(const char* program, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    std::fprintf(stderr, "%s: error: ", program);
    std::vfprintf(stderr, format, args);
    std::fprintf(stderr, "\n");
    va_end(args);
    std::exit(1);
}

inline bool value_to_integer(const pmix_value_t* v, int64_t& out)
{
    switch (v->type) {
    case PMIX_INT: out = v->data.integer; return true;
    case PMIX_INT8: out = v->data.int8; return true;
    case PMIX_INT16: out = v->data.int16; return true;
    case PMIX_INT32: out = v->data.int32; return true;
    case PMIX_INT64: out = v->data.int64; return true;
    case PMIX_UINT: out = v->data.uint; return true;
    case PMIX_UINT8: out = v->data.uint8; return true;
    case PMIX_UINT16: out = v->data.uint16; return true;
    case PMIX_UINT32: out = v->data.uint32; return true;
    case PMIX_UINT64: out = static_cast<int64_t>(v->data.uint64); return true;
    case PMIX_SIZE: out = static_cast<int64_t>(v->data.size); return true;
    case PMIX_PROC_RANK: out = v->data.rank; return true;
    default: return false;
    }
}

// PMIx_Get of a number; exits with a message naming the key when it is missing or not a number.
inline int64_t get_integer(const char* program, const pmix_proc_t* proc, const char* key)
{
    pmix_value_t* v = nullptr;
    pmix_status_t rc = PMIx_Get(proc, key, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS || !v) {
        fail(program, "PMIx_Get(%s) for %s:%u failed: %s", key, proc->nspace, proc->rank, PMIx_Error_string(rc));
    }
    int64_t out = 0;
    if (!value_to_integer(v, out)) fail(program, "PMIx_Get(%s) returned type %d, not a number", key, v->type);
    PMIX_VALUE_RELEASE(v);
    return out;
}

inline std::string get_string(const char* program, const pmix_proc_t* proc, const char* key)
{
    pmix_value_t* v = nullptr;
    pmix_status_t rc = PMIx_Get(proc, key, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS || !v) {
        fail(program, "PMIx_Get(%s) for %s:%u failed: %s", key, proc->nspace, proc->rank, PMIx_Error_string(rc));
    }
    if (v->type != PMIX_STRING || !v->data.string) fail(program, "PMIx_Get(%s) returned type %d, not a string", key, v->type);
    std::string out = v->data.string;
    PMIX_VALUE_RELEASE(v);
    return out;
}

// Initialises PMIx as a client of the DVM; exits with a message when not launched by one.
inline pmix_proc_t init(const char* program)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        fail(program, "PMIx_Init failed: %s (run this under prun or prterun)", PMIx_Error_string(rc));
    }
    return me;
}

inline void finalize(const char* program)
{
    pmix_status_t rc = PMIx_Finalize(nullptr, 0);
    if (rc != PMIX_SUCCESS) fail(program, "PMIx_Finalize failed: %s", PMIx_Error_string(rc));
}

// PMIX_QUERY_ALLOC_STATUS of allocation `id` (a client's or a tool's query alike); empty when the
// DVM does not answer it.
inline std::string alloc_status(const std::string& id)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_status_t rc = PMIX_SUCCESS;
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_ALLOC_STATUS);
    PMIX_INFO_CREATE(q.qualifiers, 1);
    q.nqual = 1;
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_ALLOC_ID, id.c_str(), PMIX_STRING);
    pmix_info_t* results = nullptr;
    size_t n = 0;
    rc = PMIx_Query_info(&q, 1, &results, &n);
    std::string text;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_QUERY_ALLOC_STATUS) && results[i].value.type == PMIX_STRING) {
            text = results[i].value.data.string;
        }
    }
    if (results) PMIX_INFO_FREE(results, n);
    PMIX_QUERY_DESTRUCT(&q);
    return text;
}

}  // namespace prte_test
