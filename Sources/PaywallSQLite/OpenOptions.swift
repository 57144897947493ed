/// How a ``Connection`` opens its file.
public struct OpenOptions: Sendable {
    /// Open for reading only (no file is created; no journal mode is set).
    public var readOnly: Bool
    /// Create the file (mode 0600) when it does not exist.
    public var create: Bool
    /// How long to wait for another connection's lock before failing with `.busy`, in milliseconds
    /// (trying again every millisecond: ``BusyWait``).
    public var busyTimeoutMilliseconds: Int32
    /// Set `journal_mode = WAL` (verified) and `synchronous = NORMAL` on open.
    public var wal: Bool
    /// With ``readOnly``: open the file as immutable (SQLite's `immutable=1`): no locks, no
    /// `-wal` or `-shm` file is created or read. Only for a file nobody writes meanwhile, such as a
    /// store this user cannot write and whose `-wal` is absent (everything is in the main file).
    public var immutable = false

    /// Creates options; the defaults open read-write, create the file, wait 5 s for locks, use WAL.
    public init(readOnly: Bool = false, create: Bool = true, busyTimeoutMilliseconds: Int32 = 5_000, wal: Bool = true) {
        self.readOnly = readOnly
        self.create = create
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.wal = wal
    }

    /// Read-write, creating the file, WAL, 5 s busy timeout.
    public static let `default` = OpenOptions()
    /// Read-only, never creating the file.
    public static let readOnly = OpenOptions(readOnly: true, create: false, wal: false)
    /// Read-only and immutable (see ``immutable``): reads the main file only and creates nothing beside it.
    public static var immutableSnapshot: OpenOptions {
        var options = OpenOptions.readOnly
        options.immutable = true
        return options
    }
}
