/**
 * Whether a drop zone on the page takes dropped files now. The window refuses every other file
 * drop (a browser would open the file in place of the app; Electron refuses the navigation) and
 * says where to drop instead: it asks here, so it need not know which pages take files.
 */
let takers = 0;

/** A drop zone is on the page; call the answer when it goes. */
export function takeFileDrops(): () => void {
  takers += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    takers -= 1;
  };
}

export function fileDropsTaken(): boolean {
  return takers > 0;
}
