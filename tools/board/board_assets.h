// The board's front end (index.html, board.js, board.css), built from
// tools/board/web/ by `node build.mjs` and embedded in the binary by
// cmake/embed_files.cmake, so the board works offline and from any folder.
// The generated ${CMAKE_BINARY_DIR}/gen/board_assets.cc implements this.
#ifndef FLOWVM_TOOLS_BOARD_BOARD_ASSETS_H_
#define FLOWVM_TOOLS_BOARD_BOARD_ASSETS_H_

#include <string_view>

namespace flowvm::board {

struct BoardAsset {
  std::string_view path;          // "/index.html", "/board.js", ...
  std::string_view content_type;  // "text/javascript; charset=utf-8", ...
  std::string_view data;
};

// The asset served at `path` (leading slash), or null. Static data: the
// pointer and the views stay valid for the life of the process.
const BoardAsset* FindBoardAsset(std::string_view path);

}  // namespace flowvm::board

#endif  // FLOWVM_TOOLS_BOARD_BOARD_ASSETS_H_
