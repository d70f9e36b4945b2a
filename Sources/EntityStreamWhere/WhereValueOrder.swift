import EntityStreamModel
/// Runtime comparison and arithmetic of ``AttributeValue``s, shared by every
/// node of the evaluator so the rules live in one place:
///
/// - NULL with anything → no order (the comparison is `unknown`).
/// - `.int`, `.double`, `.date` (epoch ms) and `.bool` (`false` = 0, `true`
///   = 1) form the numeric class and compare numerically with each other;
///   `Int64` against `Double` is compared exactly (no rounding through
///   `Double`); NaN has no order.
/// - `.string` compares only with `.string`, binary by UTF-8 bytes (the same
///   as Unicode scalar order; no normalization, case-sensitive).
/// - Any other pairing (string vs number, …) has no order → `unknown`.
///
/// `package`-visible so grouped statistics order and group values exactly
/// as where clauses compare them.
package enum WhereValueOrder {
    package enum Order { case less, equal, greater }

    /// A numeric view of a value of the numeric class.
    package enum Number {
        case int(Int64)
        case double(Double)
    }

    @inline(__always)
    package static func number(_ value: AttributeValue) -> Number? {
        switch value {
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .date(let v): return .int(v)
        case .bool(let v): return .int(v ? 1 : 0)
        case .null, .string: return nil
        }
    }

    @inline(__always)
    package static func compare(_ a: AttributeValue, _ b: AttributeValue) -> Order? {
        if case .string(let x) = a {
            if case .string(let y) = b { return compare(x, y) }
            return nil
        }
        guard let x = number(a), let y = number(b) else { return nil }
        return compare(x, y)
    }

    @inline(__always)
    package static func compare(_ a: Number, _ b: Number) -> Order? {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            return x < y ? .less : (x == y ? .equal : .greater)
        case (.double(let x), .double(let y)):
            if x < y { return .less }
            if x > y { return .greater }
            if x == y { return .equal }
            return nil
        case (.int(let x), .double(let y)):
            return compare(x, y)
        case (.double(let x), .int(let y)):
            switch compare(y, x) {
            case .less?: return .greater
            case .greater?: return .less
            case let other: return other
            }
        }
    }

    /// Exact `Int64` vs `Double` ordering.
    @inline(__always)
    package static func compare(_ x: Int64, _ y: Double) -> Order? {
        if y.isNaN { return nil }
        if y >= 9_223_372_036_854_775_808.0 { return .less }
        if y < -9_223_372_036_854_775_808.0 { return .greater }
        // Truncation toward zero is exact here (|y| < 2^63), and so is
        // Double(whole): for |y| >= 2^52, y is already integral. No libm.
        let whole = Int64(y)
        if x < whole { return .less }
        if x > whole { return .greater }
        let wholeAsDouble = Double(whole)
        return y > wholeAsDouble ? .less : (y < wholeAsDouble ? .greater : .equal)
    }

    /// Binary (UTF-8 byte / Unicode scalar) order.
    @inline(__always)
    package static func compare(_ a: String, _ b: String) -> Order {
        WhereUTF8.withBytes(a) { x in
            WhereUTF8.withBytes(b) { y in
                let n = min(x.count, y.count)
                var i = 0
                while i < n {
                    let p = x[i], q = y[i]
                    if p != q { return p < q ? .less : .greater }
                    i += 1
                }
                return x.count < y.count ? .less : (x.count == y.count ? .equal : .greater)
            }
        }
    }

    @inline(__always)
    package static func truth(_ order: Order?, _ op: WhereComparisonOperator) -> SQLTruth {
        guard let order else { return .unknown }
        switch op {
        case .equal: return SQLTruth(order == .equal)
        case .notEqual: return SQLTruth(order != .equal)
        case .less: return SQLTruth(order == .less)
        case .lessOrEqual: return SQLTruth(order != .greater)
        case .greater: return SQLTruth(order == .greater)
        case .greaterOrEqual: return SQLTruth(order != .less)
        }
    }

    /// Arithmetic on numeric-class values. Integer operations stay `Int64`
    /// unless they overflow (then `Double`); division is exact division
    /// (`7 / 2 = 3.5`, `6 / 3 = 2`); division by zero, NaN results and any
    /// non-numeric or NULL operand yield NULL.
    static func arithmetic(_ op: WhereArithmeticOperator, _ a: AttributeValue, _ b: AttributeValue) -> AttributeValue {
        guard let x = number(a), let y = number(b) else { return .null }
        if case .int(let i) = x, case .int(let j) = y {
            switch op {
            case .add:
                let (r, o) = i.addingReportingOverflow(j)
                return o ? finite(Double(i) + Double(j)) : .int(r)
            case .subtract:
                let (r, o) = i.subtractingReportingOverflow(j)
                return o ? finite(Double(i) - Double(j)) : .int(r)
            case .multiply:
                let (r, o) = i.multipliedReportingOverflow(by: j)
                return o ? finite(Double(i) * Double(j)) : .int(r)
            case .divide:
                if j == 0 { return .null }
                let (q, o) = i.dividedReportingOverflow(by: j)
                if !o && q.multipliedReportingOverflow(by: j) == (i, false) { return .int(q) }
                return finite(Double(i) / Double(j))
            }
        }
        let p = double(x), q = double(y)
        switch op {
        case .add: return finite(p + q)
        case .subtract: return finite(p - q)
        case .multiply: return finite(p * q)
        case .divide: return q == 0 ? .null : finite(p / q)
        }
    }

    static func negate(_ a: AttributeValue) -> AttributeValue {
        switch number(a) {
        case .int(let i)?:
            let (r, o) = Int64(0).subtractingReportingOverflow(i)
            return o ? .double(-Double(i)) : .int(r)
        case .double(let d)?: return .double(-d)
        case nil: return .null
        }
    }

    static func absolute(_ a: AttributeValue) -> AttributeValue {
        switch number(a) {
        case .int(let i)?:
            if i >= 0 { return .int(i) }
            return negate(.int(i))
        case .double(let d)?: return .double(Swift.abs(d))
        case nil: return .null
        }
    }

    @inline(__always)
    static func double(_ n: Number) -> Double {
        switch n {
        case .int(let i): return Double(i)
        case .double(let d): return d
        }
    }

    @inline(__always)
    static func finite(_ d: Double) -> AttributeValue {
        d.isNaN ? .null : .double(d)
    }
}
