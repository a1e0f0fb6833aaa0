// jsdom lacks matchMedia, which antd's responsive components read.
if (typeof window !== 'undefined' && !window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

// jsdom does not implement getComputedStyle for pseudo-elements (antd asks
// for ::-webkit-scrollbar); answer for the element itself.
if (typeof window !== 'undefined') {
  const gcs = window.getComputedStyle.bind(window);
  window.getComputedStyle = (elt: Element) => gcs(elt);
}
