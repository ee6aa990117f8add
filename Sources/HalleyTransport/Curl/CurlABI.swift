/// The libcurl option, info and result numbers Halley uses: libcurl's stable ABI, as
/// documented in `curl/curl.h` and `curl/multi.h` (type base plus number; the bases are
/// long 0, object pointer 10000, function pointer 20000, `curl_off_t` 30000, blob 40000).
enum CurlABI {
    /// `CURLoption` values for `curl_easy_setopt`.
    enum Option {
        static let writeData: Int32 = 10_001  // CURLOPT_WRITEDATA
        static let url: Int32 = 10_002  // CURLOPT_URL
        static let proxy: Int32 = 10_004  // CURLOPT_PROXY
        static let errorBuffer: Int32 = 10_010  // CURLOPT_ERRORBUFFER
        static let writeFunction: Int32 = 20_011  // CURLOPT_WRITEFUNCTION
        static let httpHeader: Int32 = 10_023  // CURLOPT_HTTPHEADER
        static let sslCertificate: Int32 = 10_025  // CURLOPT_SSLCERT
        static let keyPassword: Int32 = 10_026  // CURLOPT_KEYPASSWD
        static let headerData: Int32 = 10_029  // CURLOPT_HEADERDATA
        static let sslVersion: Int32 = 32  // CURLOPT_SSLVERSION
        static let customRequest: Int32 = 10_036  // CURLOPT_CUSTOMREQUEST
        static let verbose: Int32 = 41  // CURLOPT_VERBOSE: feeds the TLS version callback
        static let noBody: Int32 = 44  // CURLOPT_NOBODY
        static let post: Int32 = 47  // CURLOPT_POST
        static let followLocation: Int32 = 52  // CURLOPT_FOLLOWLOCATION
        static let httpProxyTunnel: Int32 = 61  // CURLOPT_HTTPPROXYTUNNEL
        static let sslVerifyPeer: Int32 = 64  // CURLOPT_SSL_VERIFYPEER
        static let caInfo: Int32 = 10_065  // CURLOPT_CAINFO
        static let freshConnect: Int32 = 74  // CURLOPT_FRESH_CONNECT
        static let headerFunction: Int32 = 20_079  // CURLOPT_HEADERFUNCTION
        static let httpGet: Int32 = 80  // CURLOPT_HTTPGET
        static let sslVerifyHost: Int32 = 81  // CURLOPT_SSL_VERIFYHOST
        static let httpVersion: Int32 = 84  // CURLOPT_HTTP_VERSION
        static let sslCertificateType: Int32 = 10_086  // CURLOPT_SSLCERTTYPE
        static let sslKey: Int32 = 10_087  // CURLOPT_SSLKEY
        static let sslKeyType: Int32 = 10_088  // CURLOPT_SSLKEYTYPE
        static let caPath: Int32 = 10_097  // CURLOPT_CAPATH
        static let noSignal: Int32 = 99  // CURLOPT_NOSIGNAL
        static let acceptEncoding: Int32 = 10_102  // CURLOPT_ACCEPT_ENCODING
        static let privateData: Int32 = 10_103  // CURLOPT_PRIVATE
        static let proxyAuth: Int32 = 111  // CURLOPT_PROXYAUTH
        static let postFieldSizeLarge: Int32 = 30_120  // CURLOPT_POSTFIELDSIZE_LARGE
        static let tcpNoDelay: Int32 = 121  // CURLOPT_TCP_NODELAY
        static let timeoutMilliseconds: Int32 = 155  // CURLOPT_TIMEOUT_MS
        static let copyPostFields: Int32 = 10_165  // CURLOPT_COPYPOSTFIELDS
        static let proxyUsername: Int32 = 10_175  // CURLOPT_PROXYUSERNAME
        static let proxyPassword: Int32 = 10_176  // CURLOPT_PROXYPASSWORD
        static let noProxy: Int32 = 10_177  // CURLOPT_NOPROXY
        static let protocols: Int32 = 181  // CURLOPT_PROTOCOLS (bitmask; before 7.85)
        static let tcpKeepAlive: Int32 = 213  // CURLOPT_TCP_KEEPALIVE
        static let proxyHeader: Int32 = 10_228  // CURLOPT_PROXYHEADER (7.37)
        static let headerOption: Int32 = 229  // CURLOPT_HEADEROPT (7.37)
        static let pinnedPublicKey: Int32 = 10_230  // CURLOPT_PINNEDPUBLICKEY (7.39)
        static let pipeWait: Int32 = 237  // CURLOPT_PIPEWAIT
        static let suppressConnectHeaders: Int32 = 265  // CURLOPT_SUPPRESS_CONNECT_HEADERS
        static let http09Allowed: Int32 = 285  // CURLOPT_HTTP09_ALLOWED
        static let sslCertificateBlob: Int32 = 40_291  // CURLOPT_SSLCERT_BLOB (7.71)
        static let sslKeyBlob: Int32 = 40_292  // CURLOPT_SSLKEY_BLOB (7.71)
        static let caInfoBlob: Int32 = 40_309  // CURLOPT_CAINFO_BLOB (7.77)
        static let protocolsString: Int32 = 10_318  // CURLOPT_PROTOCOLS_STR (7.85+)
    }

    /// `CURLMoption` values for `curl_multi_setopt`.
    enum MultiOption {
        static let pipelining: Int32 = 3  // CURLMOPT_PIPELINING
        static let maxConnects: Int32 = 6  // CURLMOPT_MAXCONNECTS
        static let maxHostConnections: Int32 = 7  // CURLMOPT_MAX_HOST_CONNECTIONS
    }

    /// `CURLINFO` values for `curl_easy_getinfo`.
    enum Info {
        static let responseCode: Int32 = 0x20_0000 + 2  // CURLINFO_RESPONSE_CODE
        static let privateData: Int32 = 0x10_0000 + 21  // CURLINFO_PRIVATE
        static let connectionsMade: Int32 = 0x20_0000 + 26  // CURLINFO_NUM_CONNECTS
        static let connectCode: Int32 = 0x20_0000 + 22  // CURLINFO_HTTP_CONNECTCODE
        static let defaultCAInfo: Int32 = 0x10_0000 + 61  // CURLINFO_CAINFO (7.84)
        static let defaultCAPath: Int32 = 0x10_0000 + 62  // CURLINFO_CAPATH (7.84)
        static let osErrno: Int32 = 0x20_0000 + 25  // CURLINFO_OS_ERRNO
        static let primaryIP: Int32 = 0x10_0000 + 32  // CURLINFO_PRIMARY_IP
        static let primaryPort: Int32 = 0x20_0000 + 40  // CURLINFO_PRIMARY_PORT
        static let localPort: Int32 = 0x20_0000 + 42  // CURLINFO_LOCAL_PORT
        static let httpVersion: Int32 = 0x20_0000 + 46  // CURLINFO_HTTP_VERSION (7.50)
        static let totalTime: Int32 = 0x60_0000 + 50  // CURLINFO_TOTAL_TIME_T (7.61), microseconds
        static let nameLookupTime: Int32 = 0x60_0000 + 51  // CURLINFO_NAMELOOKUP_TIME_T
        static let connectTime: Int32 = 0x60_0000 + 52  // CURLINFO_CONNECT_TIME_T
        static let startTransferTime: Int32 = 0x60_0000 + 54  // CURLINFO_STARTTRANSFER_TIME_T
        static let appConnectTime: Int32 = 0x60_0000 + 56  // CURLINFO_APPCONNECT_TIME_T
    }

    /// Option values.
    enum Value {
        static let httpVersion2TLS = 4  // CURL_HTTP_VERSION_2TLS: HTTP/2 over TLS, 1.1 otherwise
        static let pipeMultiplex = 2  // CURLPIPE_MULTIPLEX
        static let protocolHTTP = 1  // CURLPROTO_HTTP
        static let protocolHTTPS = 2  // CURLPROTO_HTTPS
        static let errorBufferSize = 256  // CURL_ERROR_SIZE
        static let httpVersion1 = 2  // CURL_HTTP_VERSION_1_1
        static let httpVersion2 = 3  // CURL_HTTP_VERSION_2_0: HTTP/2, cleartext by upgrade
        static let sslVersionTLS12 = 6  // CURL_SSLVERSION_TLSv1_2 (at least)
        static let sslVersionTLS13 = 7  // CURL_SSLVERSION_TLSv1_3 (at least)
        static let verifyHostName = 2  // CURLOPT_SSL_VERIFYHOST: the certificate must name the host
        static let authBasic = 1  // CURLAUTH_BASIC
        static let headerSeparate = 1  // CURLHEADER_SEPARATE: custom headers to the server only
        static let httpVersionReply10 = 1  // CURLINFO_HTTP_VERSION: CURL_HTTP_VERSION_1_0
        static let httpVersionReply11 = 2  // CURL_HTTP_VERSION_1_1
        static let httpVersionReply2 = 3  // CURL_HTTP_VERSION_2_0
        static let httpVersionReply3 = 30  // CURL_HTTP_VERSION_3
    }

    /// `CURLcode` values Halley tells apart.
    enum Code {
        static let ok: Int32 = 0
        static let unsupportedProtocol: Int32 = 1
        static let notBuiltIn: Int32 = 4
        static let urlMalformed: Int32 = 3
        static let couldNotResolveProxy: Int32 = 5
        static let couldNotResolveHost: Int32 = 6
        static let couldNotConnect: Int32 = 7
        static let weirdServerReply: Int32 = 8
        static let http2: Int32 = 16
        static let partialFile: Int32 = 18
        static let writeError: Int32 = 23
        static let outOfMemory: Int32 = 27
        static let operationTimedOut: Int32 = 28
        static let sslConnectError: Int32 = 35
        static let abortedByCallback: Int32 = 42
        static let unknownOption: Int32 = 48
        static let gotNothing: Int32 = 52
        static let sendError: Int32 = 55
        static let receiveError: Int32 = 56
        static let sslCertificateProblem: Int32 = 58  // the client certificate or key
        static let sslCipher: Int32 = 59
        static let peerFailedVerification: Int32 = 60
        static let badContentEncoding: Int32 = 61
        static let sslCACertificateBadFile: Int32 = 77
        static let sslIssuerError: Int32 = 83
        static let sslPinnedKeyMismatch: Int32 = 90
        static let http2Stream: Int32 = 92
        static let proxy: Int32 = 97  // CURLE_PROXY (7.73)
        static let sslClientCertificate: Int32 = 98  // CURLE_SSL_CLIENTCERT (7.77)
    }
}
