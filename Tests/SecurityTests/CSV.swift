/// A strict RFC 4180 reader for the checklist: every cell of a CSV text (records end with CRLF).
enum CSV {
    static func cells(_ text: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var quoted = false
        var atStart = true
        var characters = Array(text.unicodeScalars)[...]
        while let c = characters.popFirst() {
            if quoted {
                if c == "\"" {
                    if characters.first == "\"" {
                        characters.removeFirst()
                        cell.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                    }
                } else {
                    cell.unicodeScalars.append(c)
                }
            } else if c == "\"" && atStart {
                quoted = true
                atStart = false
            } else if c == "," || (c == "\r" && characters.first == "\n") {
                if c == "\r" { characters.removeFirst() }
                cells.append(cell)
                cell = ""
                atStart = true
            } else {
                cell.unicodeScalars.append(c)
                atStart = false
            }
        }
        if !cell.isEmpty { cells.append(cell) }
        return cells
    }
}
