/// SQL sort direction of one order-by term. `ascending` puts NULLs first,
/// `descending` last (SQL Server's and SQLite's rule). A plain value type.
public enum SortDirection: String, Sendable, Hashable {
    case ascending = "ASC"
    case descending = "DESC"
}
