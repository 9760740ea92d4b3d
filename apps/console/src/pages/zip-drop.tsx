import { useId, useState } from 'react';

/** A .zip chosen with the file picker or dropped on the zone, with the upload's progress once it goes. */
export function ZipDrop({ file, onFile, progress }: { file?: File; onFile(f: File): void; progress?: number }) {
  const id = useId();
  const [over, setOver] = useState(false);
  return (
    <div
      className={`drop ${over ? 'over' : ''}`}
      data-testid="zip-drop"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const f = e.dataTransfer.files[0];
        if (f) onFile(f);
      }}
    >
      <label htmlFor={id}>Drop a .zip of your code here, or choose one</label>
      <input id={id} type="file" accept=".zip,application/zip" onChange={(e) => e.target.files?.[0] && onFile(e.target.files[0])} />
      {file && (
        <p>
          {file.name} ({Math.ceil(file.size / 1024)} KB)
        </p>
      )}
      {progress !== undefined && <progress aria-label="Upload progress" max={1} value={progress} />}
    </div>
  );
}
