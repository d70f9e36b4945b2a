/// One message of a geoprocessing job: `{"type": "esriJobMessageType…", "description": "…"}`.
public struct GPJobMessage: Sendable, Hashable {
    /// The message type. Known spellings have constants; any other string
    /// a server sends is kept as it is (an open set, so a new type never
    /// makes a status unreadable).
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let informative = Kind(rawValue: "esriJobMessageTypeInformative")
        public static let processDefinition = Kind(rawValue: "esriJobMessageTypeProcessDefinition")
        public static let processStart = Kind(rawValue: "esriJobMessageTypeProcessStart")
        public static let processStop = Kind(rawValue: "esriJobMessageTypeProcessStop")
        public static let warning = Kind(rawValue: "esriJobMessageTypeWarning")
        public static let error = Kind(rawValue: "esriJobMessageTypeError")
        public static let empty = Kind(rawValue: "esriJobMessageTypeEmpty")
        public static let abort = Kind(rawValue: "esriJobMessageTypeAbort")
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
