/// UTC calendar fields of an epoch-milliseconds instant (the inverse of
/// ``CivilDate/daysFromCivil(year:month:day:)``) in the proleptic
/// Gregorian calendar (Gregorian rules extended before 1582; year 0 = 1 BC,
/// negative years before that), computed with integer arithmetic only
/// (Howard Hinnant's `civil_from_days`). Valid for every Int64 input.
struct UTCDateTime: Sendable, Hashable {
    var year: Int64
    var month: Int      // 1...12
    var day: Int        // 1...31
    var hour: Int
    var minute: Int
    var second: Int
    var millisecond: Int

    init(epochMilliseconds: Int64) {
        let millisecondsPerDay: Int64 = 86_400_000
        // Floor division, so instants before 1970 land on the right day.
        var days = epochMilliseconds / millisecondsPerDay
        var millisecondOfDay = epochMilliseconds % millisecondsPerDay
        if millisecondOfDay < 0 {
            millisecondOfDay += millisecondsPerDay
            days -= 1
        }
        // civil_from_days: eras of 400 years (146097 days) starting 0000-03-01.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097                                            // [0, 146096]
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365  // [0, 399]
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)            // [0, 365]
        let shiftedMonth = (5 * dayOfYear + 2) / 153                                // [0, 11], March = 0
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let ms = Int(millisecondOfDay)
        hour = ms / 3_600_000
        minute = ms / 60_000 % 60
        second = ms / 1000 % 60
        millisecond = ms % 1000
    }
}
