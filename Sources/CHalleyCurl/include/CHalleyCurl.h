// CHalleyCurl: libcurl loaded at run time, with declarations of our own.
//
// Halley does not link libcurl or need its development headers: `halley_curl_load` opens
// the shared library FoundationNetworking already depends on (libcurl.so.4) with dlopen and
// looks up the few functions below with dlsym. Option and info numbers are libcurl's
// stable ABI and live on the Swift side (CurlABI.swift).
//
// Handles are opaque pointers. Every function but `halley_curl_load` and
// `halley_curl_version` requires a successful `halley_curl_load` first.

#ifndef CHALLEY_CURL_H
#define CHALLEY_CURL_H

#include <stddef.h>
#include <stdint.h>

/// An easy handle (libcurl's `CURL *`).
typedef struct halley_curl_easy halley_curl_easy;
/// A multi handle (libcurl's `CURLM *`).
typedef struct halley_curl_multi halley_curl_multi;
/// A header list (libcurl's `struct curl_slist *`).
typedef struct halley_curl_slist halley_curl_slist;

/// libcurl's write and header callback: `size * count` bytes at `data`; return the number
/// of bytes taken (anything else aborts the transfer).
typedef size_t (*halley_curl_data_callback)(char *data, size_t size, size_t count, void *context);

/// Loads libcurl once per process and calls `curl_global_init`. Returns 1 when libcurl and
/// every function Halley uses (libcurl 7.68 or later) are there; otherwise 0, with the
/// reason in `reason` (NUL-terminated, truncated to `reason_size`).
int halley_curl_load(char *reason, size_t reason_size);

/// `curl_version()`, or NULL before a successful load.
const char *halley_curl_version(void);
/// `curl_version_info()->features` (`CURL_VERSION_` bits), or 0 before a successful load.
int halley_curl_features(void);

halley_curl_easy *halley_curl_easy_init(void);
void halley_curl_easy_cleanup(halley_curl_easy *easy);
int halley_curl_easy_setopt_long(halley_curl_easy *easy, int option, long value);
int halley_curl_easy_setopt_pointer(halley_curl_easy *easy, int option, const void *value);
int halley_curl_easy_setopt_offset(halley_curl_easy *easy, int option, int64_t value);
int halley_curl_easy_setopt_callback(halley_curl_easy *easy, int option, halley_curl_data_callback callback);
/// A `CURLOPTTYPE_BLOB` option (libcurl 7.71 or later): libcurl copies the `length` bytes at
/// `data` (`CURL_BLOB_COPY`), so they may go away after the call.
int halley_curl_easy_setopt_blob(halley_curl_easy *easy, int option, const void *data, size_t length);
int halley_curl_easy_getinfo_long(halley_curl_easy *easy, int info, long *value);
int halley_curl_easy_getinfo_pointer(halley_curl_easy *easy, int info, void **value);
/// A `CURLINFO_OFF_T` value (libcurl's 64-bit `curl_off_t`).
int halley_curl_easy_getinfo_offset(halley_curl_easy *easy, int info, int64_t *value);

/// Installs a debug callback (`CURLOPT_DEBUGFUNCTION`) that reads nothing but the TLS version
/// libcurl reports when it makes a TLS connection ("SSL connection using TLSv1.3 / ..."),
/// copied NUL-terminated into `buffer` (at least 16 bytes, which must outlive the handle).
/// The callback runs only while `CURLOPT_VERBOSE` is on; with it installed, libcurl never
/// writes its verbose text to stderr.
int halley_curl_easy_set_tls_version_buffer(halley_curl_easy *easy, char *buffer);
const char *halley_curl_easy_strerror(int code);

/// Why ``halley_curl_response``'s callbacks stopped a transfer (they returned 0).
enum {
    HALLEY_RESPONSE_OK = 0,
    /// The header section passed `max_header_bytes`.
    HALLEY_RESPONSE_HEADER_BYTES = 1,
    /// The header section passed `max_header_count` field lines.
    HALLEY_RESPONSE_HEADER_COUNT = 2,
    /// The body, or the `Content-Length` declared before it, passed `max_body_bytes`.
    HALLEY_RESPONSE_BODY_TOO_LARGE = 3,
    /// A buffer could not grow.
    HALLEY_RESPONSE_OUT_OF_MEMORY = 4
};

/// Where one header field of ``halley_curl_response/header_block`` is: its name (without the
/// colon) and its value (blanks around it removed, folded lines joined with a space).
typedef struct halley_curl_field {
    size_t name_offset;
    size_t name_length;
    size_t value_offset;
    size_t value_length;
    /// No byte of the name or value is 0x80 or above.
    int ascii;
    /// Set by `halley_curl_response_mark_repeats`: the name and value are byte for byte those
    /// of the kept response's field at the same position.
    int repeated;
} halley_curl_field;

/// One easy handle's response as it arrives, read by its header and body callbacks
/// (`halley_curl_easy_set_response`) on the loop thread, in C, as they run for every header
/// line and body chunk (perf: BENCHMARKS.md, "Why the hot paths look as they do").
/// The callbacks split each field line into its name and value as it arrives (the caller only
/// makes strings of them), and read what the limits need.
typedef struct halley_curl_response {
    // The limits, set by `halley_curl_response_reset` before each transfer.
    size_t max_header_bytes;
    size_t max_header_count;
    int has_body_limit;
    int64_t max_body_bytes;
    // The final response so far (an interim 1xx response is dropped when the next begins).
    long status;
    size_t header_bytes;
    size_t header_count;
    /// The last `Content-Length` field's value; -1 for none or not a number.
    int64_t content_length;
    int encoded;
    int headers_complete;
    /// A `HALLEY_RESPONSE_` code.
    int failure;
    /// The fields' names and values, back to back, in the order of ``fields``.
    unsigned char *header_block;
    size_t header_length;
    size_t header_capacity;
    /// The final response's fields in order; a line without a colon is not one.
    halley_curl_field *fields;
    size_t field_count;
    size_t field_capacity;
    /// The body as decoded by libcurl; malloc'd, handed over by `halley_curl_response_take_body`.
    unsigned char *body;
    size_t body_length;
    size_t body_capacity;
    /// The fields and block of the response last kept by `halley_curl_response_keep_fields`,
    /// to compare the next response's with.
    unsigned char *kept_block;
    size_t kept_capacity;
    halley_curl_field *kept_fields;
    size_t kept_count;
    size_t kept_field_capacity;
} halley_curl_response;

/// Points the handle's header and body callbacks (`CURLOPT_HEADERFUNCTION`,
/// `CURLOPT_WRITEFUNCTION` and their data) at `response`, which must outlive the handle.
int halley_curl_easy_set_response(halley_curl_easy *easy, halley_curl_response *response);
/// Clears `response` for the next transfer, keeping its header buffer, and sets its limits
/// (`max_body_bytes` < 0 with `has_body_limit` refuses every body byte, as a negative limit does).
void halley_curl_response_reset(
    halley_curl_response *response, size_t max_header_bytes, size_t max_header_count, int has_body_limit,
    int64_t max_body_bytes);
/// Hands the body's buffer over (free it with `free`; NULL when there is no byte); the
/// response holds none after.
unsigned char *halley_curl_response_take_body(halley_curl_response *response, size_t *length);
/// Marks each field whose name and value are byte for byte those of the kept response's field
/// at the same position (``halley_curl_field/repeated``). Returns 1 when no two fields share a
/// name (ASCII case aside); 0 when two do, or when there are more than
/// `HALLEY_DISTINCT_NAMES_CHECKED` fields, too many to compare each with each here.
int halley_curl_response_mark_repeats(halley_curl_response *response);
enum { HALLEY_DISTINCT_NAMES_CHECKED = 24 };
/// Keeps this response's fields for the next response to compare with (their buffers trade
/// places with the last kept ones', which the next response then fills).
void halley_curl_response_keep_fields(halley_curl_response *response);
/// Frees the response's buffers.
void halley_curl_response_free(halley_curl_response *response);

halley_curl_slist *halley_curl_slist_append(halley_curl_slist *list, const char *line);
void halley_curl_slist_free_all(halley_curl_slist *list);

halley_curl_multi *halley_curl_multi_init(void);
int halley_curl_multi_cleanup(halley_curl_multi *multi);
int halley_curl_multi_setopt_long(halley_curl_multi *multi, int option, long value);
int halley_curl_multi_add_handle(halley_curl_multi *multi, halley_curl_easy *easy);
int halley_curl_multi_remove_handle(halley_curl_multi *multi, halley_curl_easy *easy);
int halley_curl_multi_perform(halley_curl_multi *multi, int *running);
/// `curl_multi_poll` with no extra file descriptors.
int halley_curl_multi_poll(halley_curl_multi *multi, int timeout_ms);
/// `curl_multi_wakeup`: the one call libcurl allows from any thread.
int halley_curl_multi_wakeup(halley_curl_multi *multi);
/// The next finished transfer from `curl_multi_info_read`: returns 1 and sets `easy` and
/// `result` (a CURLcode), or returns 0 when there is none.
int halley_curl_multi_next_done(halley_curl_multi *multi, halley_curl_easy **easy, int *result);

/// A loop thread of `multi` starts: until ``halley_curl_loop_closing`` the process's exit
/// wakes it, and until ``halley_curl_loop_ended`` the exit waits for it (at most 2 s), so
/// that no loop is still using OpenSSL when OpenSSL's own exit handler frees it. Returns 0
/// when the process is already exiting (the loop should stop at once), 1 otherwise.
int halley_curl_loop_began(halley_curl_multi *multi);
/// 1 once the process's exit has begun: every loop should stop.
int halley_curl_process_exiting(void);
/// The loop is about to clean up `multi`: no more wake-ups from the exit handler.
void halley_curl_loop_closing(halley_curl_multi *multi);
/// The loop has cleaned up everything it held.
void halley_curl_loop_ended(void);

#endif
