// See include/CHalleyCurl.h. The function pointer types below follow libcurl's documented
// prototypes: curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, so
// they are called through variadic pointer types, never cast to fixed-argument ones.

#include "CHalleyCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// libcurl's `CURLMsg`: an enum, the easy handle, and a union of a pointer and a CURLcode.
typedef struct {
    int message;
    void *easy;
    union {
        void *whatever;
        int result;
    } data;
} halley_curl_message;

// libcurl's `struct curl_blob` (7.71.0).
typedef struct {
    void *data;
    size_t length;
    unsigned int flags;
} halley_curl_blob;

enum { HALLEY_CURLMSG_DONE = 1, HALLEY_CURL_GLOBAL_ALL = 3, HALLEY_CURL_BLOB_COPY = 1 };

static struct {
    int (*global_init)(long flags);
    const char *(*version)(void);
    void *(*version_info)(int stamp);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *easy);
    int (*easy_setopt)(void *easy, int option, ...);
    int (*easy_getinfo)(void *easy, int info, ...);
    const char *(*easy_strerror)(int code);
    void *(*slist_append)(void *list, const char *line);
    void (*slist_free_all)(void *list);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *multi);
    int (*multi_setopt)(void *multi, int option, ...);
    int (*multi_add_handle)(void *multi, void *easy);
    int (*multi_remove_handle)(void *multi, void *easy);
    int (*multi_perform)(void *multi, int *running);
    int (*multi_poll)(void *multi, void *extra_fds, unsigned extra_count, int timeout_ms, int *ready);
    int (*multi_wakeup)(void *multi);
    halley_curl_message *(*multi_info_read)(void *multi, int *queued);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char load_reason[256] = "";

static void stop_loops_at_exit(void);

static void *find(void *library, const char *name) {
    void *symbol = dlsym(library, name);
    if (symbol == NULL && load_reason[0] == '\0') {
        snprintf(load_reason, sizeof load_reason, "libcurl has no %s (Halley needs libcurl 7.68 or later)", name);
    }
    return symbol;
}

static void load(void) {
    static const char *const names[] = {
        "libcurl.so.4", "libcurl.so", "libcurl.4.dylib", "/usr/lib/libcurl.4.dylib", "libcurl.dylib",
    };
    void *library = NULL;
    for (size_t index = 0; index < sizeof names / sizeof names[0] && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(load_reason, sizeof load_reason, "cannot load libcurl: %s", error ? error : "not found");
        return;
    }
    // The library stays loaded for the life of the process: handles may outlive any one user.
    *(void **)&curl.global_init = find(library, "curl_global_init");
    *(void **)&curl.version = find(library, "curl_version");
    *(void **)&curl.version_info = find(library, "curl_version_info");
    *(void **)&curl.easy_init = find(library, "curl_easy_init");
    *(void **)&curl.easy_cleanup = find(library, "curl_easy_cleanup");
    *(void **)&curl.easy_setopt = find(library, "curl_easy_setopt");
    *(void **)&curl.easy_getinfo = find(library, "curl_easy_getinfo");
    *(void **)&curl.easy_strerror = find(library, "curl_easy_strerror");
    *(void **)&curl.slist_append = find(library, "curl_slist_append");
    *(void **)&curl.slist_free_all = find(library, "curl_slist_free_all");
    *(void **)&curl.multi_init = find(library, "curl_multi_init");
    *(void **)&curl.multi_cleanup = find(library, "curl_multi_cleanup");
    *(void **)&curl.multi_setopt = find(library, "curl_multi_setopt");
    *(void **)&curl.multi_add_handle = find(library, "curl_multi_add_handle");
    *(void **)&curl.multi_remove_handle = find(library, "curl_multi_remove_handle");
    *(void **)&curl.multi_perform = find(library, "curl_multi_perform");
    *(void **)&curl.multi_poll = find(library, "curl_multi_poll");
    *(void **)&curl.multi_wakeup = find(library, "curl_multi_wakeup");
    *(void **)&curl.multi_info_read = find(library, "curl_multi_info_read");
    if (load_reason[0] != '\0') {
        return;
    }
    int code = curl.global_init(HALLEY_CURL_GLOBAL_ALL);
    if (code != 0) {
        snprintf(load_reason, sizeof load_reason, "curl_global_init failed with CURLcode %d", code);
        return;
    }
    // Registered after curl_global_init, which initialised OpenSSL and registered its own
    // clean-up: exit handlers run in reverse order, so the loops end before OpenSSL does.
    atexit(stop_loops_at_exit);
    loaded = 1;
}

int halley_curl_load(char *reason, size_t reason_size) {
    pthread_once(&load_once, load);
    if (!loaded && reason != NULL && reason_size > 0) {
        snprintf(reason, reason_size, "%s", load_reason);
    }
    return loaded;
}

const char *halley_curl_version(void) { return loaded ? curl.version() : NULL; }

// The start of libcurl's `curl_version_info_data`, unchanged since its first version.
typedef struct {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
} halley_curl_version_info_start;

int halley_curl_features(void) {
    if (!loaded) {
        return 0;
    }
    // The stamp only says which struct version the caller knows; every version starts so.
    const halley_curl_version_info_start *info = curl.version_info(0);
    return info == NULL ? 0 : info->features;
}

halley_curl_easy *halley_curl_easy_init(void) { return (halley_curl_easy *)curl.easy_init(); }

void halley_curl_easy_cleanup(halley_curl_easy *easy) { curl.easy_cleanup(easy); }

int halley_curl_easy_setopt_long(halley_curl_easy *easy, int option, long value) {
    return curl.easy_setopt(easy, option, value);
}

int halley_curl_easy_setopt_pointer(halley_curl_easy *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}

int halley_curl_easy_setopt_offset(halley_curl_easy *easy, int option, int64_t value) {
    // curl_off_t is a 64-bit signed integer on every platform libcurl supports.
    return curl.easy_setopt(easy, option, (long long)value);
}

int halley_curl_easy_setopt_callback(halley_curl_easy *easy, int option, halley_curl_data_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}

int halley_curl_easy_setopt_blob(halley_curl_easy *easy, int option, const void *data, size_t length) {
    // Copied by libcurl before the call returns, so the struct may live on the stack.
    halley_curl_blob blob = {(void *)data, length, HALLEY_CURL_BLOB_COPY};
    return curl.easy_setopt(easy, option, &blob);
}

int halley_curl_easy_getinfo_long(halley_curl_easy *easy, int info, long *value) {
    return curl.easy_getinfo(easy, info, value);
}

int halley_curl_easy_getinfo_pointer(halley_curl_easy *easy, int info, void **value) {
    return curl.easy_getinfo(easy, info, value);
}

int halley_curl_easy_getinfo_offset(halley_curl_easy *easy, int info, int64_t *value) {
    long long offset = 0;
    int code = curl.easy_getinfo(easy, info, &offset);
    *value = (int64_t)offset;
    return code;
}

enum {
    HALLEY_CURLINFO_TEXT = 0,
    HALLEY_CURLOPT_DEBUGFUNCTION = 20094,
    HALLEY_CURLOPT_DEBUGDATA = 10095,
    HALLEY_TLS_VERSION_SIZE = 16
};

// libcurl's `curl_debug_callback`. Only informational text is looked at, and only its one line
// naming the negotiated TLS version; headers and data pass by untouched.
static int tls_version_debug(void *easy, int type, char *data, size_t size, void *context) {
    (void)easy;
    static const char prefix[] = "SSL connection using ";
    const size_t prefix_length = sizeof prefix - 1;
    if (type != HALLEY_CURLINFO_TEXT || context == NULL || size <= prefix_length ||
        memcmp(data, prefix, prefix_length) != 0) {
        return 0;
    }
    char *buffer = context;
    size_t length = 0;
    const char *version = data + prefix_length;
    while (length < HALLEY_TLS_VERSION_SIZE - 1 && length < size - prefix_length && version[length] != ' ' &&
           version[length] != '/' && version[length] != '\n' && version[length] != '\r') {
        buffer[length] = version[length];
        length++;
    }
    buffer[length] = '\0';
    return 0;
}

int halley_curl_easy_set_tls_version_buffer(halley_curl_easy *easy, char *buffer) {
    int code = curl.easy_setopt(easy, HALLEY_CURLOPT_DEBUGFUNCTION, tls_version_debug);
    if (code != 0) {
        return code;
    }
    return curl.easy_setopt(easy, HALLEY_CURLOPT_DEBUGDATA, (void *)buffer);
}

const char *halley_curl_easy_strerror(int code) { return curl.easy_strerror(code); }

// MARK: The response callbacks

enum {
    HALLEY_CURLOPT_WRITEDATA = 10001,
    HALLEY_CURLOPT_WRITEFUNCTION = 20011,
    HALLEY_CURLOPT_HEADERDATA = 10029,
    HALLEY_CURLOPT_HEADERFUNCTION = 20079
};

/// A declared length is reserved up to this much at once: the reservation only saves copies,
/// and a lying length must not commit memory the body never fills.
static const size_t body_reservation_cap = 16 << 20;

static int is_blank(unsigned char byte) { return byte == ' ' || byte == '\t'; }

/// Makes room for `extra` more bytes; 0 when memory is short.
static int reserve(unsigned char **buffer, size_t *capacity, size_t length, size_t extra) {
    if (extra > SIZE_MAX - length) {
        return 0;
    }
    size_t needed = length + extra;
    if (needed <= *capacity) {
        return 1;
    }
    size_t grown = *capacity < 256 ? 256 : *capacity;
    while (grown < needed) {
        grown = grown > SIZE_MAX / 2 ? needed : grown * 2;
    }
    unsigned char *moved = realloc(*buffer, grown);
    if (moved == NULL) {
        return 0;
    }
    *buffer = moved;
    *capacity = grown;
    return 1;
}

/// The status code of `HTTP/1.1 200 OK` or `HTTP/2 200`: the (up to) three digits after the
/// first space; 0 when one of them is not a digit.
static long status_code(const unsigned char *line, size_t length) {
    const unsigned char *space = memchr(line, ' ', length);
    if (space == NULL) {
        return 0;
    }
    const unsigned char *end = line + length;
    long code = 0;
    for (const unsigned char *digit = space + 1; digit < end && digit < space + 4; digit++) {
        if (*digit < '0' || *digit > '9') {
            return 0;
        }
        code = code * 10 + (*digit - '0');
    }
    return code;
}

/// Whether the line is a field named `name` (lowercase ASCII), in any case.
static int has_name(const unsigned char *line, size_t length, const char *name, size_t name_length) {
    if (length <= name_length || line[name_length] != ':') {
        return 0;
    }
    for (size_t index = 0; index < name_length; index++) {
        if ((line[index] | 0x20) != (unsigned char)name[index]) {
            return 0;
        }
    }
    return 1;
}

/// The decimal number after the colon (blanks anywhere ignored), or -1.
static int64_t number_after(const unsigned char *line, size_t length) {
    const unsigned char *colon = memchr(line, ':', length);
    if (colon == NULL) {
        return -1;
    }
    int64_t value = 0;
    int digits = 0;
    for (const unsigned char *byte = colon + 1; byte < line + length; byte++) {
        if (is_blank(*byte)) {
            continue;
        }
        if (*byte < '0' || *byte > '9' || digits >= 18) {
            return -1;
        }
        value = value * 10 + (*byte - '0');
        digits++;
    }
    return digits > 0 ? value : -1;
}

/// Whether a Content-Encoding line's value is `identity` (any case, blanks ignored) or empty.
static int value_is_identity(const unsigned char *line, size_t length) {
    const unsigned char *colon = memchr(line, ':', length);
    if (colon == NULL) {
        return 1;
    }
    static const char identity[] = "identity";
    size_t matched = 0;
    for (const unsigned char *byte = colon + 1; byte < line + length; byte++) {
        if (is_blank(*byte)) {
            continue;
        }
        if (matched >= sizeof identity - 1 || (*byte | 0x20) != (unsigned char)identity[matched]) {
            return 0;
        }
        matched++;
    }
    return matched == 0 || matched == sizeof identity - 1;
}

/// The final response's header section is complete. Refuses a declared length over the body
/// limit before any of the body is read (only unencoded: an encoded length says nothing
/// certain about the decoded size), and sizes the buffer for the rest.
static int headers_ended(halley_curl_response *response) {
    response->headers_complete = 1;
    if (response->encoded || response->content_length < 0) {
        return 1;
    }
    if (response->has_body_limit && response->content_length > response->max_body_bytes) {
        response->failure = HALLEY_RESPONSE_BODY_TOO_LARGE;
        return 0;
    }
    size_t wanted = (uint64_t)response->content_length < body_reservation_cap ? (size_t)response->content_length
                                                                              : body_reservation_cap;
    // Only a saving: without the memory the body grows as it comes.
    (void)reserve(&response->body, &response->body_capacity, response->body_length, wanted);
    return 1;
}

/// `length` bytes without blanks at either end: moves `*start` and returns the new length.
static size_t trim_blanks(const unsigned char **start, size_t length) {
    while (length > 0 && is_blank(**start)) {
        (*start)++;
        length--;
    }
    while (length > 0 && is_blank((*start)[length - 1])) {
        length--;
    }
    return length;
}

/// Whether no byte is 0x80 or above: eight at a time, as a line is read once per response.
static int all_ascii(const unsigned char *bytes, size_t length) {
    uint64_t seen = 0;
    if (length < 8) {
        for (size_t index = 0; index < length; index++) {
            seen |= bytes[index];
        }
        return (seen & 0x80) == 0;
    }
    uint64_t word;
    for (size_t index = 0; index + 8 <= length; index += 8) {
        memcpy(&word, bytes + index, 8);
        seen |= word;
    }
    // The last eight bytes, overlapping what was read: the rest without a byte-by-byte loop.
    memcpy(&word, bytes + length - 8, 8);
    seen |= word;
    return (seen & 0x8080808080808080ULL) == 0;
}

/// Records a field line (without its CRLF): a new field at its first colon, or, for a line
/// that starts with a blank (obsolete folding), more of the last field's value, which is
/// always at the end of the block. A line without a colon, or a fold before any field, is
/// dropped. 0 (and the failure set) when memory is short.
static int store_field_line(halley_curl_response *response, const unsigned char *line, size_t length) {
    if (is_blank(line[0])) {
        if (response->field_count == 0) {
            return 1;
        }
        halley_curl_field *last = &response->fields[response->field_count - 1];
        const unsigned char *more = line;
        size_t more_length = trim_blanks(&more, length);
        if (!reserve(&response->header_block, &response->header_capacity, response->header_length, 1 + more_length)) {
            response->failure = HALLEY_RESPONSE_OUT_OF_MEMORY;
            return 0;
        }
        response->header_block[response->header_length] = ' ';
        memcpy(response->header_block + response->header_length + 1, more, more_length);
        response->header_length += 1 + more_length;
        last->value_length += 1 + more_length;
        last->ascii = last->ascii && all_ascii(more, more_length);
        return 1;
    }
    const unsigned char *colon = memchr(line, ':', length);
    if (colon == NULL) {
        return 1;
    }
    const unsigned char *name = line;
    size_t name_length = trim_blanks(&name, (size_t)(colon - line));
    const unsigned char *value = colon + 1;
    size_t value_length = trim_blanks(&value, length - (size_t)(colon - line) - 1);
    if (response->field_count == response->field_capacity) {
        size_t grown = response->field_capacity < 16 ? 16 : response->field_capacity * 2;
        halley_curl_field *moved = realloc(response->fields, grown * sizeof *moved);
        if (moved == NULL) {
            response->failure = HALLEY_RESPONSE_OUT_OF_MEMORY;
            return 0;
        }
        response->fields = moved;
        response->field_capacity = grown;
    }
    size_t name_offset = response->header_length;
    if (!reserve(&response->header_block, &response->header_capacity, name_offset, name_length + value_length)) {
        response->failure = HALLEY_RESPONSE_OUT_OF_MEMORY;
        return 0;
    }
    // Only with bytes to copy: a field of no bytes at all (`:`) may find the block unallocated.
    if (name_length + value_length > 0) {
        memcpy(response->header_block + name_offset, name, name_length);
        memcpy(response->header_block + name_offset + name_length, value, value_length);
        response->header_length += name_length + value_length;
    }
    response->fields[response->field_count++] = (halley_curl_field){
        .name_offset = name_offset,
        .name_length = name_length,
        .value_offset = name_offset + name_length,
        .value_length = value_length,
        .ascii = all_ascii(line, length),
        .repeated = 0,
    };
    return 1;
}

/// Forgets what the header section read so far: at a transfer's start, and at each status
/// line (an interim 1xx response's fields are not the final response's, nor its bytes).
static void begin_header_section(halley_curl_response *response, long status) {
    response->status = status;
    response->header_length = 0;
    response->field_count = 0;
    response->header_count = 0;
    response->header_bytes = 0;
    response->content_length = -1;
    response->encoded = 0;
    response->headers_complete = 0;
}

/// `CURLOPT_HEADERFUNCTION`: one header line (status line, field, or the empty line ending the
/// section); 0 past the header limits, so libcurl stops.
static size_t response_header(char *data, size_t size, size_t count, void *context) {
    halley_curl_response *response = context;
    size_t total = size * count;
    const unsigned char *line = (const unsigned char *)data;
    size_t length = total;
    // Almost every line ends in CRLF; anything else is trimmed a byte at a time.
    if (length >= 2 && line[length - 2] == '\r' && line[length - 1] == '\n') {
        length -= 2;
    }
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) {
        length--;
    }
    int status_line = length >= 5 && memcmp(line, "HTTP/", 5) == 0;
    if (status_line) {
        // A new response (an interim 1xx comes before the final one): start over.
        begin_header_section(response, status_code(line, length));
    }
    response->header_bytes += total;
    if (response->header_bytes > response->max_header_bytes) {
        response->failure = HALLEY_RESPONSE_HEADER_BYTES;
        return 0;
    }
    if (length == 0) {
        if (response->status >= 200) {
            return headers_ended(response) ? total : 0;
        }
        return total;
    }
    if (status_line || response->headers_complete) {
        return total;  // the status line is not a field; after the section, trailers
    }
    if (!is_blank(line[0])) {
        if (response->header_count >= response->max_header_count) {
            response->failure = HALLEY_RESPONSE_HEADER_COUNT;
            return 0;
        }
        if (has_name(line, length, "content-length", 14)) {
            response->content_length = number_after(line, length);
        } else if (has_name(line, length, "content-encoding", 16)) {
            response->encoded = !value_is_identity(line, length);
        }
    }
    response->header_count++;
    return store_field_line(response, line, length) ? total : 0;
}

/// `CURLOPT_WRITEFUNCTION`: a body chunk, already decoded; 0 past the body limit.
static size_t response_body(char *data, size_t size, size_t count, void *context) {
    halley_curl_response *response = context;
    size_t total = size * count;
    if (response->has_body_limit &&
        (int64_t)response->body_length + (int64_t)total > response->max_body_bytes) {
        response->failure = HALLEY_RESPONSE_BODY_TOO_LARGE;
        return 0;
    }
    if (!reserve(&response->body, &response->body_capacity, response->body_length, total)) {
        response->failure = HALLEY_RESPONSE_OUT_OF_MEMORY;
        return 0;
    }
    if (total > 0) {
        memcpy(response->body + response->body_length, data, total);
    }
    response->body_length += total;
    return total;
}

int halley_curl_easy_set_response(halley_curl_easy *easy, halley_curl_response *response) {
    int code = curl.easy_setopt(easy, HALLEY_CURLOPT_HEADERFUNCTION, response_header);
    if (code == 0) {
        code = curl.easy_setopt(easy, HALLEY_CURLOPT_HEADERDATA, (void *)response);
    }
    if (code == 0) {
        code = curl.easy_setopt(easy, HALLEY_CURLOPT_WRITEFUNCTION, response_body);
    }
    if (code == 0) {
        code = curl.easy_setopt(easy, HALLEY_CURLOPT_WRITEDATA, (void *)response);
    }
    return code;
}

void halley_curl_response_reset(
    halley_curl_response *response, size_t max_header_bytes, size_t max_header_count, int has_body_limit,
    int64_t max_body_bytes) {
    response->max_header_bytes = max_header_bytes;
    response->max_header_count = max_header_count;
    response->has_body_limit = has_body_limit;
    response->max_body_bytes = max_body_bytes;
    begin_header_section(response, 0);
    response->failure = HALLEY_RESPONSE_OK;
    response->body_length = 0;
}

unsigned char *halley_curl_response_take_body(halley_curl_response *response, size_t *length) {
    unsigned char *body = response->body_length > 0 ? response->body : NULL;
    *length = response->body_length;
    if (body == NULL) {
        return NULL;  // the buffer, if any, stays for the next transfer
    }
    response->body = NULL;
    response->body_length = 0;
    response->body_capacity = 0;
    return body;
}

/// Whether two names are equal, ASCII letters compared without regard to case (RFC 9110, 5.1).
static int same_name(const unsigned char *one, const unsigned char *other, size_t length) {
    for (size_t index = 0; index < length; index++) {
        unsigned char a = one[index];
        unsigned char b = other[index];
        if (a != b && (a >= 'A' && a <= 'Z' ? a + 32 : a) != (b >= 'A' && b <= 'Z' ? b + 32 : b)) {
            return 0;
        }
    }
    return 1;
}

int halley_curl_response_mark_repeats(halley_curl_response *response) {
    int distinct = response->field_count <= HALLEY_DISTINCT_NAMES_CHECKED;
    for (size_t index = 0; index < response->field_count; index++) {
        halley_curl_field *field = &response->fields[index];
        field->repeated = 0;
        if (index >= response->kept_count) {
            continue;
        }
        const halley_curl_field *kept = &response->kept_fields[index];
        size_t length = field->name_length + field->value_length;
        // Name and value are adjacent in both blocks; equal name lengths make the split agree.
        field->repeated = field->name_length == kept->name_length && field->value_length == kept->value_length &&
                          (length == 0 || memcmp(response->header_block + field->name_offset,
                                                 response->kept_block + kept->name_offset, length) == 0);
    }
    for (size_t index = 1; distinct && index < response->field_count; index++) {
        const halley_curl_field *field = &response->fields[index];
        for (size_t earlier = 0; earlier < index; earlier++) {
            const halley_curl_field *other = &response->fields[earlier];
            if (other->name_length == field->name_length &&
                same_name(response->header_block + field->name_offset, response->header_block + other->name_offset,
                          field->name_length)) {
                distinct = 0;
                break;
            }
        }
    }
    return distinct;
}

void halley_curl_response_keep_fields(halley_curl_response *response) {
    unsigned char *block = response->kept_block;
    size_t capacity = response->kept_capacity;
    halley_curl_field *fields = response->kept_fields;
    size_t field_capacity = response->kept_field_capacity;
    response->kept_block = response->header_block;
    response->kept_capacity = response->header_capacity;
    response->kept_fields = response->fields;
    response->kept_field_capacity = response->field_capacity;
    response->kept_count = response->field_count;
    response->header_block = block;
    response->header_capacity = capacity;
    response->fields = fields;
    response->field_capacity = field_capacity;
    response->header_length = 0;
    response->field_count = 0;
}

void halley_curl_response_free(halley_curl_response *response) {
    free(response->header_block);
    free(response->fields);
    free(response->body);
    free(response->kept_block);
    free(response->kept_fields);
    response->kept_block = NULL;
    response->kept_fields = NULL;
    response->kept_count = 0;
    response->kept_capacity = 0;
    response->kept_field_capacity = 0;
    response->header_block = NULL;
    response->fields = NULL;
    response->field_count = 0;
    response->field_capacity = 0;
    response->body = NULL;
    response->header_capacity = 0;
    response->body_capacity = 0;
    response->header_length = 0;
    response->body_length = 0;
}

halley_curl_slist *halley_curl_slist_append(halley_curl_slist *list, const char *line) {
    return (halley_curl_slist *)curl.slist_append(list, line);
}

void halley_curl_slist_free_all(halley_curl_slist *list) { curl.slist_free_all(list); }

halley_curl_multi *halley_curl_multi_init(void) { return (halley_curl_multi *)curl.multi_init(); }

int halley_curl_multi_cleanup(halley_curl_multi *multi) { return curl.multi_cleanup(multi); }

int halley_curl_multi_setopt_long(halley_curl_multi *multi, int option, long value) {
    return curl.multi_setopt(multi, option, value);
}

int halley_curl_multi_add_handle(halley_curl_multi *multi, halley_curl_easy *easy) {
    return curl.multi_add_handle(multi, easy);
}

int halley_curl_multi_remove_handle(halley_curl_multi *multi, halley_curl_easy *easy) {
    return curl.multi_remove_handle(multi, easy);
}

int halley_curl_multi_perform(halley_curl_multi *multi, int *running) { return curl.multi_perform(multi, running); }

int halley_curl_multi_poll(halley_curl_multi *multi, int timeout_ms) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL);
}

int halley_curl_multi_wakeup(halley_curl_multi *multi) { return curl.multi_wakeup(multi); }

int halley_curl_multi_next_done(halley_curl_multi *multi, halley_curl_easy **easy, int *result) {
    int queued = 0;
    halley_curl_message *message;
    while ((message = curl.multi_info_read(multi, &queued)) != NULL) {
        if (message->message == HALLEY_CURLMSG_DONE) {
            *easy = (halley_curl_easy *)message->easy;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

// MARK: Loop threads and the process's exit
//
// OpenSSL frees its global locks in its exit handler. A loop thread still closing TLS
// connections at that moment (the last requester released just before `exit`, as a
// command-line tool does) would use freed locks and crash. So the exit handler below tells
// every running loop to stop and waits, for a bounded time, until each has cleaned up.

static pthread_mutex_t loops_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t loops_changed = PTHREAD_COND_INITIALIZER;
/// The multi handles of the running loops that still accept wake-ups (under `loops_lock`).
static halley_curl_multi **loops = NULL;
static size_t loops_count = 0;
static size_t loops_capacity = 0;
/// Loops that began and have not ended, waking or not (under `loops_lock`).
static size_t loops_running = 0;
static atomic_int process_exiting = 0;
/// Whether this thread is a loop thread: its own `exit` must not wait for itself.
static _Thread_local int on_loop_thread = 0;

int halley_curl_loop_began(halley_curl_multi *multi) {
    pthread_mutex_lock(&loops_lock);
    if (loops_count == loops_capacity) {
        size_t capacity = loops_capacity == 0 ? 4 : loops_capacity * 2;
        halley_curl_multi **grown = realloc(loops, capacity * sizeof *loops);
        if (grown != NULL) {
            loops = grown;
            loops_capacity = capacity;
        }
    }
    // Without room (no memory), the loop still runs and is still waited for; the exit
    // handler only cannot wake it before its poll times out.
    if (loops_count < loops_capacity) {
        loops[loops_count++] = multi;
    }
    loops_running++;
    on_loop_thread = 1;
    pthread_mutex_unlock(&loops_lock);
    return atomic_load_explicit(&process_exiting, memory_order_relaxed) ? 0 : 1;
}

int halley_curl_process_exiting(void) { return atomic_load_explicit(&process_exiting, memory_order_relaxed); }

void halley_curl_loop_closing(halley_curl_multi *multi) {
    pthread_mutex_lock(&loops_lock);
    for (size_t index = 0; index < loops_count; index++) {
        if (loops[index] == multi) {
            loops[index] = loops[--loops_count];
            break;
        }
    }
    pthread_mutex_unlock(&loops_lock);
}

void halley_curl_loop_ended(void) {
    pthread_mutex_lock(&loops_lock);
    loops_running--;
    pthread_cond_broadcast(&loops_changed);
    pthread_mutex_unlock(&loops_lock);
}

static void stop_loops_at_exit(void) {
    pthread_mutex_lock(&loops_lock);
    atomic_store_explicit(&process_exiting, 1, memory_order_relaxed);
    // A loop removes its handle under this lock before cleaning it up, so each is valid here.
    for (size_t index = 0; index < loops_count; index++) {
        curl.multi_wakeup(loops[index]);
    }
    // Bounded: a loop stuck in a callback must not hold the process open.
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 2;
    while (loops_running > (size_t)on_loop_thread) {
        if (pthread_cond_timedwait(&loops_changed, &loops_lock, &deadline) != 0) {
            break;
        }
    }
    pthread_mutex_unlock(&loops_lock);
}
