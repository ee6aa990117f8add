/// The expansion algorithm of RFC 6570 Appendix A, run over parsed parts.
///
/// Output is built as ASCII bytes in one pre-sized ``URITemplateOutput``:
/// every byte that reaches it is either pre-encoded literal text or
/// percent-encoded value text, so turning it into a `String` at the end
/// needs no re-validation beyond the ASCII fast path.
struct URITemplateExpander {
    let template: String
    let program: URITemplateProgram
    let variables: [String: TemplateValue]

    func expand() throws(URITemplateError) -> String {
        var output = URITemplateOutput(capacity: program.estimatedExpansionCount)
        for part in program.parts {
            switch part {
            case .literal(let range):
                output.append(program.bytes, range: range)
            case .expression(let op, let specs):
                try expand(op, specs, into: &output)
            }
        }
        return output.makeString()
    }

    private func expand(
        _ op: URITemplateOperator,
        _ specs: Range<Int>,
        into output: inout URITemplateOutput
    ) throws(URITemplateError) {
        var isFirstDefined = true

        for specIndex in specs {
            let spec = program.varSpecs[specIndex]
            // A missing variable, .undefined, an empty list and an empty
            // associative array are all "undefined" and leave no trace,
            // not even a separator (RFC 6570 section 3.2.1).
            guard let value = variables[spec.name] else { continue }
            switch value {
            case .undefined:
                continue
            case .list(let items) where items.isEmpty:
                continue
            case .associativeArray(let pairs) where pairs.isEmpty:
                continue
            case .list, .associativeArray:
                if case .prefix = spec.modifier {
                    throw URITemplateError(
                        .prefixOnCompositeValue, in: template, utf8Offset: spec.utf8Offset,
                        "prefix modifier applied to composite value of '\(spec.name)'"
                    )
                }
            case .string:
                break
            }

            if isFirstDefined {
                if let first = op.first {
                    output.append(first)
                }
                isFirstDefined = false
            } else {
                output.append(op.separator)
            }

            switch value {
            case .string(let string):
                appendString(string, spec: spec, op: op, into: &output)
            case .list(let items):
                if spec.modifier == .explode {
                    appendExplodedList(items, spec: spec, op: op, into: &output)
                } else {
                    appendList(items, spec: spec, op: op, into: &output)
                }
            case .associativeArray(let pairs):
                if spec.modifier == .explode {
                    appendExplodedPairs(pairs, op: op, into: &output)
                } else {
                    appendList(pairs.lazy.flatMap { [$0.key, $0.value] }, spec: spec, op: op, into: &output)
                }
            case .undefined:
                break
            }
        }
    }

    private func appendString(
        _ string: String,
        spec: URITemplateVarSpec,
        op: URITemplateOperator,
        into output: inout URITemplateOutput
    ) {
        if op.isNamed {
            output.append(program.bytes, range: spec.nameBytes)
            guard Self.appendAssignment(valueIsEmpty: string.isEmpty, op: op, into: &output) else { return }
        }
        if case .prefix(let length) = spec.modifier {
            PercentEncoding.appendValue(
                Self.prefix(of: string, length: length),
                allowReserved: op.allowsReserved,
                to: &output
            )
        } else {
            PercentEncoding.appendValue(string.utf8, allowReserved: op.allowsReserved, to: &output)
        }
    }

    /// Non-exploded list: `name=a,b,c` or `a,b,c`; the comma is fixed by
    /// RFC 6570 section 3.2.1 whatever the operator's separator. An associative array is
    /// the list of its keys and values in turn: `name=k1,v1,k2,v2`.
    private func appendList(
        _ items: some Sequence<String>,
        spec: URITemplateVarSpec,
        op: URITemplateOperator,
        into output: inout URITemplateOutput
    ) {
        if op.isNamed {
            output.append(program.bytes, range: spec.nameBytes)
            output.append(UInt8(ascii: "="))
        }
        for (index, item) in items.enumerated() {
            if index > 0 {
                output.append(UInt8(ascii: ","))
            }
            PercentEncoding.appendValue(item.utf8, allowReserved: op.allowsReserved, to: &output)
        }
    }

    /// Exploded list: each member becomes its own element joined by the
    /// operator's separator, repeating the name for named operators.
    private func appendExplodedList(
        _ items: [String],
        spec: URITemplateVarSpec,
        op: URITemplateOperator,
        into output: inout URITemplateOutput
    ) {
        for (index, item) in items.enumerated() {
            if index > 0 {
                output.append(op.separator)
            }
            if op.isNamed {
                output.append(program.bytes, range: spec.nameBytes)
                guard Self.appendAssignment(valueIsEmpty: item.isEmpty, op: op, into: &output) else { continue }
            }
            PercentEncoding.appendValue(item.utf8, allowReserved: op.allowsReserved, to: &output)
        }
    }

    /// Exploded associative array: `k1=v1<sep>k2=v2`; for named operators an
    /// empty value gets the operator's `ifemp` treatment, like a string.
    ///
    /// Keys are encoded with the operator's allow set, like values. Appendix
    /// A would copy them with literal encoding, but that lets a key such as
    /// `a&b` split a query parameter in two; encoding is the safe reading and
    /// gives the same result for every key the RFC and the suite use.
    private func appendExplodedPairs(
        _ pairs: [TemplateValue.KeyValue],
        op: URITemplateOperator,
        into output: inout URITemplateOutput
    ) {
        for (index, pair) in pairs.enumerated() {
            if index > 0 {
                output.append(op.separator)
            }
            PercentEncoding.appendValue(pair.key.utf8, allowReserved: op.allowsReserved, to: &output)
            guard Self.appendAssignment(valueIsEmpty: pair.value.isEmpty, op: op, into: &output) else { continue }
            PercentEncoding.appendValue(pair.value.utf8, allowReserved: op.allowsReserved, to: &output)
        }
    }

    /// What follows a variable's name or an exploded pair's key: `=`, or for a named
    /// operator's empty value only the operator's `ifemp` (`;x`, `?x=`; RFC 6570 section 3.2.1).
    ///
    /// - Returns: Whether the value is still to be written.
    private static func appendAssignment(
        valueIsEmpty: Bool, op: URITemplateOperator, into output: inout URITemplateOutput
    ) -> Bool {
        if op.isNamed && valueIsEmpty {
            if let ifEmpty = op.ifEmpty {
                output.append(ifEmpty)
            }
            return false
        }
        output.append(UInt8(ascii: "="))
        return true
    }

    /// The first `length` characters of `string` as UTF-8.
    ///
    /// Counting `Character`s means a prefix never splits a grapheme cluster
    /// (a flag, an accented letter written with a combining mark, CRLF), so
    /// it can never cut a multi-byte sequence either (RFC 6570 section 2.4.1).
    static func prefix(of string: String, length: Int) -> Substring.UTF8View {
        // A string has at least as many UTF-8 bytes as Characters, so a
        // short one fits whole without any grapheme breaking.
        if string.utf8.count <= length {
            return string[...].utf8
        }
        let end =
            string.index(string.startIndex, offsetBy: length, limitedBy: string.endIndex)
            ?? string.endIndex
        return string[..<end].utf8
    }
}
