import Foundation

let code = await Tool.run(Array(CommandLine.arguments.dropFirst()), context: .process())
exit(code)
