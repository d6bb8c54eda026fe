"""matrix_browser_checks.py — reading the explorer's matrix pictures in a browser (src/inspect/pages/explorer/maps.js,
X.matrixPicture): a picture's cells are one image, a pixel per cell, so a test reads the pixels back and compares
each with the colour the page gives the weight attention.json has there (X.heat), and points at a cell by where it
lies. Used by explorer_lab_browser_test.py, explorer_browser_test.py and explorer_access_checks.py."""
from selenium.webdriver.common.by import By

# The image decoded into a canvas; every pixel against X.heat(w) of the weights [rows][cols] handed in, each channel
# within 1 of 255 (maps.js, heatOf). Returns the cells whose colour differs, at most 5, and the number compared.
PIXELS = """
var svg = arguments[0], weights = arguments[1], done = arguments[arguments.length - 1];
var image = new Image();
image.onload = function () {
  var canvas = document.createElement('canvas');
  canvas.width = image.width; canvas.height = image.height;
  var context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  var pixels = context.getImageData(0, 0, image.width, image.height).data, wrong = [], cells = 0;
  if (image.height !== weights.length || image.width !== weights[0].length) {
    return done({wrong: ['the image is ' + image.width + ' x ' + image.height], cells: 0});
  }
  weights.forEach(function (row, i) {
    row.forEach(function (w, j) {
      var want = window.attnlabExplorer.heat(w).match(/\\d+/g).map(Number), at = 4 * (i * row.length + j);
      cells += 1;
      var off = Math.max(Math.abs(pixels[at] - want[0]), Math.abs(pixels[at + 1] - want[1]),
                         Math.abs(pixels[at + 2] - want[2]));
      if (off > 1) {                         // the page colours by the nearest of 1024 levels: within 1 of 255
        if (wrong.length < 5) wrong.push([i, j, w, [pixels[at], pixels[at + 1], pixels[at + 2]], want]);
      }
    });
  });
  done({wrong: wrong, cells: cells});
};
image.onerror = function () { done({wrong: ['the image does not load'], cells: 0}); };
image.src = svg.querySelector('image.cells').getAttribute('href');
"""


def picture(driver, name):
    """The matrix view's picture of one head, name "m/h" (map m of attention.json, head h)."""
    return driver.find_element(By.CSS_SELECTOR, '#view-matrix svg[data-map="%s"]' % name)


def wrong_pixels(driver, svg, weights):
    """The cells of `svg` whose colour is not X.heat of `weights` [rows][cols] (at most 5), and how many were read."""
    answer = driver.execute_async_script(PIXELS, svg, weights)
    return answer["wrong"], answer["cells"]


def point_at(driver, svg, i, j):
    """The pointer over the middle of cell (i, j) of a matrix picture: a mousemove there, as the browser sends it (a
    cell may be 2 px, finer than WebDriver's whole-pixel pointer moves)."""
    driver.execute_script(
        "var s = arguments[0], im = s.querySelector('image.cells'), cell = Number(s.dataset.cell);"
        "s.scrollIntoView({block: 'center'});"
        "var r = s.getBoundingClientRect(), x = r.left + Number(im.getAttribute('x')) + cell * (arguments[2] + 0.5),"
        " y = r.top + Number(im.getAttribute('y')) + cell * (arguments[1] + 0.5);"
        "s.dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, bubbles: true}));", svg, i, j)


def focused_weights(driver):
    """The weights of the matrix picture that has the focus, from the page's data (attention.json)."""
    return driver.execute_script(
        "var name = (document.activeElement.getAttribute('data-map') || '').split('/');"
        "return name.length === 2 ? window.attnlabExplorer.data.maps[Number(name[0])].weights[Number(name[1])] : [];")
